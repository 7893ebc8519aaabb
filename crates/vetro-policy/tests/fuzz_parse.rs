//! The rule parser and the model reader never panic, whatever the input.

use proptest::prelude::*;
use vetro_policy::datalog::parse::{parse, parse_literal};
use vetro_policy::facts::MValue;

proptest! {
    #[test]
    fn parser_total_on_arbitrary_text(s in "\\PC{0,80}") {
        let _ = parse(&s);
        let _ = parse_literal(&s);
    }

    #[test]
    fn parser_total_on_policy_like_text(s in "[a-z:(),\\[\\] \"+\\-=!.;0-9]{0,60}") {
        let _ = parse(&s);
        let _ = parse(&format!("p(x) :- {s}"));
    }

    #[test]
    fn json_reader_total(s in "[{}\\[\\]\",:0-9a-z\\\\ .eE+\\-]{0,60}") {
        let _ = vetro_yaml::parse_json_exact::<MValue>(&s);
    }
}
