//! Standard Webhooks signatures: `v1,<base64 of HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`,
//! where the key is the base64 after the secret's `whsec_` prefix. Receivers verify with any
//! Standard Webhooks library, so the bytes signed must match the scheme exactly.

use base64::{engine::general_purpose::STANDARD, Engine as _};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use sounding_domain::webhook::SECRET_PREFIX;

/// Why a secret cannot sign; the message never repeats the secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignError {
    #[error("signing secret is not valid base64")]
    NotBase64,
    #[error("signing secret is empty")]
    Empty,
}

/// The HMAC key of a `whsec_…` secret. A secret without the prefix is taken as bare base64,
/// as the Standard Webhooks libraries do.
pub fn signing_key(secret: &str) -> Result<Vec<u8>, SignError> {
    let encoded = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
    let key = STANDARD.decode(encoded).map_err(|_| SignError::NotBase64)?;
    if key.is_empty() {
        return Err(SignError::Empty);
    }
    Ok(key)
}

/// The `webhook-signature` header value for one attempt.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, SignError> {
    let key = signing_key(secret)?;
    // HMAC takes keys of any length; the error arm is unreachable but costs nothing.
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|_| SignError::Empty)?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_standard_webhooks_reference_vector() {
        // The test vector of the Standard Webhooks reference libraries.
        let signature = sign(
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1649367553,
            br#"{"email":"test@example.com","username":"test_user"}"#,
        );
        assert_eq!(
            signature.as_deref(),
            Ok("v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=")
        );
    }

    #[test]
    fn bad_secrets_are_errors() {
        assert_eq!(sign("whsec_%%%", "id", 1, b"{}"), Err(SignError::NotBase64));
        assert_eq!(sign("whsec_", "id", 1, b"{}"), Err(SignError::Empty));
    }
}
