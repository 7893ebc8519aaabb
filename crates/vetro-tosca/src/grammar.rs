//! The bundled grammar.

/// ONAP's TOSCA 1.1 kwalify grammar with vetro's resolutions R1–R7 written into
/// it (edits are marked in the file). UTF-8 (the upstream file's three
/// Windows-1252 apostrophes are stored as UTF-8).
pub const BUNDLED_GRAMMAR: &[u8] = include_bytes!("../data/tosca_simple_yaml_1_1.grammar");

#[cfg(test)]
mod tests {
    use vetro_diag::SourceMap;

    #[test]
    fn bundled_grammar_compiles() {
        let mut sources = SourceMap::new();
        let g = vetro_kwalify::Grammar::load("g", super::BUNDLED_GRAMMAR, &mut sources)
            .expect("bundled grammar compiles");
        assert!(g.len() > 50);
        assert_eq!(
            g.rule(g.root()).name.as_deref(),
            Some("service_template_definition")
        );
    }
}
