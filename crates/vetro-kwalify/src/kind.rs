//! The kinds of problem the grammar engine reports.

vetro_diag::kinds! {
    /// A problem of a grammar, or of a document validated against one.
    pub enum KwalifyKind {
        /// The grammar itself is malformed.
        Grammar = "grammar",
        /// A required key is missing, or a required value is empty.
        MissingRequired = "missing-required",
        /// A mapping has a key its rule does not allow.
        UnknownKey = "unknown-key",
        /// A value is not of its rule's type.
        WrongType = "wrong-type",
        /// A value is not one of its rule's `enum`.
        BadEnum = "bad-enum",
        /// A string does not match its rule's `pattern`.
        PatternMismatch = "pattern-mismatch",
        /// A value is outside its rule's `range`.
        OutOfRange = "out-of-range",
        /// A value's length is outside its rule's `length`.
        BadLength = "bad-length",
        /// A value its rule marks `unique` occurs twice.
        NotUnique = "not-unique",
    }
}
