//! YAQL: lexer, parser, evaluator, value model and standard library.
