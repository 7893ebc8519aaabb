//! Plan signatures as Murano made them: RSA PKCS#1 v1.5 over SHA-256 of the
//! agent's input queue name followed by the message body, sent in the
//! message's `signature` header. The engine holds the private key; the
//! agent's `engine_key` is the public one (PKCS#1 or SubjectPublicKeyInfo PEM).

use rsa::pkcs1::{DecodeRsaPrivateKey, DecodeRsaPublicKey, EncodeRsaPublicKey};
use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey, LineEnding};
use rsa::{Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};
use sha2::{Digest, Sha256};

fn digest(queue: &str, body: &[u8]) -> Vec<u8> {
    let mut h = Sha256::new();
    h.update(queue.as_bytes());
    h.update(body);
    h.finalize().to_vec()
}

/// A private key from PEM (PKCS#1 `RSA PRIVATE KEY` or PKCS#8 `PRIVATE KEY`).
pub fn private_key(pem: &str) -> Result<RsaPrivateKey, String> {
    RsaPrivateKey::from_pkcs1_pem(pem)
        .or_else(|_| RsaPrivateKey::from_pkcs8_pem(pem))
        .map_err(|e| format!("not an RSA private key in PEM form: {e}"))
}

/// A public key from PEM (PKCS#1 `RSA PUBLIC KEY` or `PUBLIC KEY`).
pub fn public_key(pem: &str) -> Result<RsaPublicKey, String> {
    RsaPublicKey::from_pkcs1_pem(pem)
        .or_else(|_| RsaPublicKey::from_public_key_pem(pem))
        .map_err(|e| format!("not an RSA public key in PEM form: {e}"))
}

/// The public half of `key` as PKCS#1 PEM, the form Murano put in user data.
pub fn public_pem(key: &RsaPrivateKey) -> String {
    key.to_public_key()
        .to_pkcs1_pem(LineEnding::LF)
        .unwrap_or_default()
}

/// Sign a message body bound for `queue`.
pub fn sign(key: &RsaPrivateKey, queue: &str, body: &[u8]) -> Result<Vec<u8>, String> {
    key.sign(Pkcs1v15Sign::new::<Sha256>(), &digest(queue, body))
        .map_err(|e| format!("signing failed: {e}"))
}

/// Check the signature of a message body received on `queue`.
pub fn verify(
    key: &RsaPublicKey,
    queue: &str,
    body: &[u8],
    signature: &[u8],
) -> Result<(), String> {
    if signature.is_empty() {
        return Err("Required signature was not found".into());
    }
    key.verify(
        Pkcs1v15Sign::new::<Sha256>(),
        &digest(queue, body),
        signature,
    )
    .map_err(|_| "the plan's signature does not match the engine key".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_bind_queue_and_body() {
        let mut rng = rsa::rand_core::OsRng;
        let key = RsaPrivateKey::new(&mut rng, 1024).unwrap();
        let public = public_key(&public_pem(&key)).unwrap();
        let sig = sign(&key, "e1-h1", b"{\"a\": 1}").unwrap();
        assert!(verify(&public, "e1-h1", b"{\"a\": 1}", &sig).is_ok());
        assert!(verify(&public, "e1-h2", b"{\"a\": 1}", &sig).is_err());
        assert!(verify(&public, "e1-h1", b"{\"a\": 2}", &sig).is_err());
        assert!(verify(&public, "e1-h1", b"{\"a\": 1}", b"").is_err());
    }
}
