//! The kinds of problem the YAML layer reports, besides `io`, `encoding` and
//! `yaml-syntax`.

vetro_diag::kinds! {
    /// A problem of a YAML document that is well-formed text.
    pub enum YamlKind {
        /// A mapping has the same key twice.
        DuplicateKey = "duplicate-key",
        /// An alias names the node that contains it.
        RecursiveAlias = "recursive-alias",
        /// Aliases expand to more nodes than the loader allows.
        AliasLimit = "alias-limit",
        /// Collections nest deeper than the loader allows.
        DepthLimit = "depth-limit",
        /// A scalar is not a valid value of its explicit tag (`!!int abc`).
        BadTaggedValue = "bad-tagged-value",
        /// A merge key (`<<`) is given something other than mappings.
        MergeValue = "merge-value",
        /// An integer has more digits than Python allows.
        IntTooLong = "int-too-long",
        /// The input is larger than the reading limit.
        TooLarge = "too-large",
    }
}
