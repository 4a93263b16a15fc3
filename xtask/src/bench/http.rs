//! A minimal HTTP/1.1 client for seeding and for polling the server between runs: POST a JSON
//! body over a kept-alive loopback connection. Enough for our own server (Content-Length or
//! chunked bodies); it spares xtask an HTTP client dependency and an async runtime.

use std::{
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::{SocketAddr, TcpStream},
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Mutex,
    },
    time::Duration,
};

use anyhow::{bail, Context as _, Result};
use serde_json::Value;

pub struct Response {
    pub status: u16,
    pub body: Value,
}

pub struct Client {
    addr: SocketAddr,
    conn: Option<BufReader<TcpStream>>,
}

impl Client {
    pub fn new(addr: SocketAddr) -> Self {
        Self { addr, conn: None }
    }

    /// POSTs `body` to `path`; retried once on a fresh connection when a kept-alive one was
    /// closed by the server in between.
    pub fn post(&mut self, path: &str, token: Option<&str>, body: &Value) -> Result<Response> {
        let payload = serde_json::to_vec(body)?;
        let reused = self.conn.is_some();
        match self.try_post(path, token, &payload) {
            Ok(response) => Ok(response),
            Err(_) if reused => {
                self.conn = None;
                self.try_post(path, token, &payload)
            }
            Err(e) => Err(e),
        }
    }

    /// Like `post`, but anything other than a 2xx is an error naming the call.
    pub fn post_ok(&mut self, path: &str, token: Option<&str>, body: &Value) -> Result<Value> {
        let response = self.post(path, token, body)?;
        if !(200..300).contains(&response.status) {
            bail!(
                "POST {path} {body} answered {}: {}",
                response.status,
                response.body
            );
        }
        Ok(response.body)
    }

    fn try_post(&mut self, path: &str, token: Option<&str>, payload: &[u8]) -> Result<Response> {
        if self.conn.is_none() {
            let stream = TcpStream::connect(self.addr)
                .with_context(|| format!("cannot connect to {}", self.addr))?;
            stream.set_nodelay(true)?;
            stream.set_read_timeout(Some(Duration::from_secs(60)))?;
            self.conn = Some(BufReader::new(stream));
        }
        let conn = self.conn.as_mut().expect("connected above");
        let mut head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            self.addr,
            payload.len()
        );
        if let Some(token) = token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        let stream = conn.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(payload)?;

        let (status, body, keep_alive) = read_response(conn)?;
        if !keep_alive {
            self.conn = None;
        }
        let body = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&body).with_context(|| {
                format!(
                    "POST {path}: the body is not JSON: {}",
                    String::from_utf8_lossy(&body)
                )
            })?
        };
        Ok(Response { status, body })
    }
}

/// Reads one response: status, body, and whether the connection stays open.
fn read_response(conn: &mut BufReader<TcpStream>) -> Result<(u16, Vec<u8>, bool)> {
    let mut line = String::new();
    if conn.read_line(&mut line)? == 0 {
        bail!("the connection closed before a response");
    }
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("not an HTTP status line: {line:?}"))?;
    let mut length = None;
    let mut chunked = false;
    let mut keep_alive = true;
    loop {
        line.clear();
        conn.read_line(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "connection" => keep_alive = !value.eq_ignore_ascii_case("close"),
                _ => {}
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            conn.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .with_context(|| format!("bad chunk size {line:?}"))?;
            let mut chunk = vec![0; size + 2];
            conn.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = length {
        body.resize(length, 0);
        conn.read_exact(&mut body)?;
    }
    Ok((status, body, keep_alive))
}

/// Calls `call` once per item from `workers` threads (one connection each) and returns the
/// results in the items' order; the first error stops the others.
pub fn parallel<T, R, F>(addr: SocketAddr, workers: usize, items: &[T], call: F) -> Result<Vec<R>>
where
    T: Sync,
    R: Send,
    F: Fn(&mut Client, &T) -> Result<R> + Sync,
{
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| {
                let mut client = Client::new(addr);
                while !failed.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    match call(&mut client, item) {
                        Ok(result) => results.lock().unwrap()[index] = Some(result),
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            first_error.lock().unwrap().get_or_insert(e);
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap() {
        return Err(e);
    }
    Ok(results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect())
}
