//! The kinds of problem a UI definition can have.

vetro_diag::kinds! {
    /// A problem of a UI definition (`ui.yaml`) or of the package it belongs to.
    pub enum FormsKind {
        /// The definition's shape is wrong (a section, form or field is not what it must be).
        Structure = "ui-structure",
        /// A top-level section the format does not know.
        UnknownSection = "ui-unknown-section",
        /// The `Version` is not one vetro reads.
        Version = "ui-version",
        /// Two forms or two fields of a form share a name.
        Duplicate = "ui-duplicate",
        /// A key of a form the format does not know.
        UnknownKey = "ui-unknown-key",
        /// A field attribute the format does not know.
        UnknownAttribute = "ui-unknown-attribute",
        /// A field attribute's value is of the wrong shape.
        Attribute = "ui-attribute",
        /// A field's `type` names no field type.
        FieldType = "ui-field-type",
        /// A field's validator is malformed.
        Validator = "ui-validator",
        /// An expression names a form or field that does not exist.
        Reference = "ui-reference",
        /// A `!yaql` expression does not parse.
        YaqlSyntax = "ui-yaql-syntax",
        /// The package has no UI definition and none can be made from its classes.
        Missing = "ui-missing",
    }
}
