//! The batch protocol as a standalone binary (handy while developing):
//! `cargo run --release -p vetro-yaql --example yaql_batch < cases.jsonl`.

fn main() {
    let child = std::thread::Builder::new()
        .stack_size(512 * 1024 * 1024)
        .spawn(|| {
            let stdin = std::io::stdin();
            let stdout = std::io::stdout();
            vetro_yaql::batch::run(stdin.lock(), stdout.lock())
        });
    if let Ok(h) = child {
        let _ = h.join();
    }
}
