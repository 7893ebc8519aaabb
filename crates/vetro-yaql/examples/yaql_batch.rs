//! The batch protocol as a standalone binary (handy while developing):
//! `cargo run --release -p vetro-yaql --example yaql_batch < cases.jsonl`.

fn main() {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let _ = vetro_yaql::batch::run(stdin.lock(), stdout.lock());
}
