//! Test support shared by the OpenStack test programs (included with `#[path]`).

/// Held while a test works with Heat: the test Heat keeps its database in
/// SQLite when PostgreSQL does not answer (`openstack-services.sh`), and
/// there two stack operations at once fail ("database is locked").
/// Production Heat's database has no such limit; the tests take turns,
/// across test programs too (a lock file), and wait for their stack
/// deletions to finish before giving their turn away, so that they pass on
/// either database.
pub struct HeatTurn(#[allow(dead_code)] std::fs::File);

pub fn heat_turn() -> HeatTurn {
    let path = std::env::temp_dir().join("vetro-openstack-tests.lock");
    let f = std::fs::File::create(path).expect("the lock file");
    f.lock().expect("the lock");
    HeatTurn(f)
}
