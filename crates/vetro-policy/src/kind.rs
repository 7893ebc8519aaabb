//! The kinds of problem in the files policy enforcement reads, besides the
//! policy language's own error classes ([`crate::datalog::ErrorClass`]).

vetro_diag::kinds! {
    /// A problem of an input file of policy enforcement.
    pub enum InputKind {
        /// The object model cannot be decomposed into facts.
        ObjectModel = "object-model",
        /// A class hierarchy file (`Child->Parent` lines) is malformed.
        Classes = "classes",
    }
}
