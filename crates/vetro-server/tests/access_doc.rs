//! The crate README's table of who may call what is the route table's.

#[test]
fn the_readme_lists_every_route_with_its_access() {
    let readme = include_str!("../README.md");
    let table = vetro_server::access::markdown_table(&vetro_server::routes::rules());
    if std::env::var_os("VETRO_PRINT_ACCESS_TABLE").is_some() {
        println!("{table}");
    }
    assert!(
        readme.contains(&table),
        "README.md's access table is out of date; run \
         VETRO_PRINT_ACCESS_TABLE=1 cargo test -p vetro-server --test access_doc -- --nocapture \
         and paste the table:\n{table}"
    );
}
