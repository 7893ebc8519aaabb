//! The kinds of problem the TOSCA checks report, besides those of the YAML
//! layer and the grammar engine (`missing-required`, `wrong-type`, ...).

vetro_diag::kinds! {
    /// A problem of a service template.
    pub enum ToscaKind {
        /// An import cannot be read or is not a template.
        ImportFailed = "import-failed",
        /// A type, template or file named in the template does not exist.
        UnresolvedReference = "unresolved-reference",
        /// A type name names no type of the right construct.
        UnknownType = "unknown-type",
        /// A type declares the same name twice.
        DuplicateName = "duplicate-name",
        /// Types derive from each other in a cycle.
        DerivationCycle = "derivation-cycle",
        /// A derived type redefines what it inherits in a way TOSCA forbids.
        BadRedefinition = "bad-redefinition",
        /// A template names a property, attribute or requirement its type does not declare.
        UndeclaredName = "undeclared-name",
        /// A value is not of its declared data type.
        BadValue = "bad-value",
        /// A constraint clause is malformed.
        BadConstraint = "bad-constraint",
        /// A value breaks one of its constraints.
        ConstraintViolation = "constraint-violation",
        /// An intrinsic function is called wrongly.
        BadFunction = "bad-function",
        /// A requirement is assigned more or fewer times than its occurrences allow.
        Occurrences = "occurrences",
        /// An occurrences range is not `[lower, upper]` with lower <= upper.
        BadRange = "bad-range",
    }
}
