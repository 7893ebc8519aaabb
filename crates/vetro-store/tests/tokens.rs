//! Tokens across processes: two stores on one SQLite file stand for two
//! service processes; a token revoked through one is refused by the other
//! within a second, and expired tokens are refused everywhere.

use vetro_store::tokens::{Principal, TOKEN_CACHE_TTL};
use vetro_store::{Store, StoreError};

fn who(project: &str) -> Principal {
    Principal {
        project_id: project.into(),
        user_id: "u".into(),
        is_admin: false,
    }
}

async fn two_processes() -> (Store, Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    let a = Store::connect(&url).await.expect("first store");
    a.migrate().await.expect("migrate");
    let b = Store::connect(&url).await.expect("second store");
    (a, b, dir)
}

#[tokio::test]
async fn a_revoked_token_is_refused_everywhere_within_a_second() {
    assert!(TOKEN_CACHE_TTL <= std::time::Duration::from_millis(900));
    let (server, admin_cli, _dir) = two_processes().await;
    let token = server.create_token(&who("p1")).await.unwrap();
    // The server has verified (and cached) it.
    assert!(server.authenticate(&token).await.unwrap().is_some());
    let listed = admin_cli.list_tokens(Some("p1")).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert!(!listed[0].id.is_empty() && !token.starts_with(&listed[0].id));
    let revoked = admin_cli.revoke_token(&listed[0].id).await.unwrap();
    assert_eq!(revoked.principal, who("p1"));
    tokio::time::sleep(TOKEN_CACHE_TTL + std::time::Duration::from_millis(50)).await;
    assert_eq!(server.authenticate(&token).await.unwrap(), None);
    assert!(admin_cli.list_tokens(None).await.unwrap().is_empty());
    // Revoking again, or naming nothing, is an error.
    assert!(matches!(
        admin_cli.revoke_token(&listed[0].id).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        admin_cli.revoke_token("xyz").await,
        Err(StoreError::Invalid(_))
    ));
}

#[tokio::test]
async fn tokens_can_be_revoked_by_the_token_itself() {
    let (a, _b, _dir) = two_processes().await;
    let keep = a.create_token(&who("p1")).await.unwrap();
    let drop = a.create_token(&who("p2")).await.unwrap();
    a.revoke_token(&drop).await.unwrap();
    let left = a.list_tokens(None).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].principal, who("p1"));
    assert!(a.authenticate(&keep).await.unwrap().is_some());
}

#[tokio::test]
async fn expired_tokens_are_refused() {
    let (a, b, _dir) = two_processes().await;
    let soon = jiff::Timestamp::now() + jiff::SignedDuration::from_millis(700);
    let token = a.create_token_until(&who("p1"), Some(soon)).await.unwrap();
    assert!(a.authenticate(&token).await.unwrap().is_some());
    assert!(b.authenticate(&token).await.unwrap().is_some());
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    // Refused even where it is still cached.
    assert_eq!(a.authenticate(&token).await.unwrap(), None);
    assert_eq!(b.authenticate(&token).await.unwrap(), None);
    let listed = a.list_tokens(None).await.unwrap();
    assert!(listed[0].expires.is_some());
}
