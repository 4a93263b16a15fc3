//! The local webhook receiver of S7: answers every POST 204 and records, per delivery, how
//! long after the event it arrived (arrival clock minus the payload's `occurredAt`; the
//! server runs on the same machine, so both read the same clock).

use std::{
    collections::HashSet,
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::{SocketAddr, TcpListener, TcpStream},
    sync::{Arc, Mutex},
    time::{SystemTime, UNIX_EPOCH},
};

use anyhow::Result;

#[derive(Default)]
struct Seen {
    lags_ms: Vec<f64>,
    ids: HashSet<String>,
    duplicates: usize,
}

#[derive(Clone)]
pub struct Receiver {
    pub addr: SocketAddr,
    seen: Arc<Mutex<Seen>>,
}

impl Receiver {
    /// Listens on a free loopback port; each connection gets a thread (the server keeps a
    /// few alive).
    pub fn start() -> Result<Receiver> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let receiver = Receiver {
            addr: listener.local_addr()?,
            seen: Arc::default(),
        };
        let seen = receiver.seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let seen = seen.clone();
                std::thread::spawn(move || serve(stream, &seen));
            }
        });
        Ok(receiver)
    }

    /// Forgets what arrived so far (before each S7 run).
    pub fn reset(&self) {
        *self.seen.lock().unwrap() = Seen::default();
    }

    /// The lags of the distinct deliveries so far, and how many repeats arrived.
    pub fn lags(&self) -> (Vec<f64>, usize) {
        let seen = self.seen.lock().unwrap();
        (seen.lags_ms.clone(), seen.duplicates)
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Seen>) {
    let mut writer = match stream.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0;
        let mut webhook_id = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap_or(0),
                    "webhook-id" => webhook_id = value.trim().to_owned(),
                    _ => {}
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let arrived_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0);
        let occurred_ms = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["occurredAt"].as_str().and_then(rfc3339_ms));
        if let Some(occurred_ms) = occurred_ms {
            let mut seen = seen.lock().unwrap();
            if seen.ids.insert(webhook_id) {
                seen.lags_ms.push(arrived_ms - occurred_ms);
            } else {
                seen.duplicates += 1;
            }
        }
        if writer
            .write_all(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
            .is_err()
        {
            return;
        }
    }
}

/// `2026-11-24T10:00:00.123Z` (UTC, as the server writes it) as Unix milliseconds.
pub fn rfc3339_ms(raw: &str) -> Option<f64> {
    let raw = raw.strip_suffix('Z')?;
    let (date, time) = raw.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':');
    let (h, min) = (
        t.next()?.parse::<i64>().ok()?,
        t.next()?.parse::<i64>().ok()?,
    );
    let secs: f64 = t.next()?.parse().ok()?;
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3_600 + min * 60) as f64 + secs) * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_convert_to_unix_milliseconds() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00.000Z"), Some(0.0));
        assert_eq!(
            rfc3339_ms("2000-03-01T00:00:01.250Z"),
            Some(951_868_801_250.0)
        );
        assert_eq!(
            rfc3339_ms("2026-11-24T10:00:00Z"),
            Some(1_795_514_400_000.0)
        );
        assert_eq!(rfc3339_ms("2026-11-24T10:00:00+01:00"), None);
    }
}
