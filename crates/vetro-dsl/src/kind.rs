//! The kinds of problem MuranoPL packages, classes and their checks report,
//! besides those of the YAML layer.

vetro_diag::kinds! {
    /// A problem of a MuranoPL package or class.
    pub enum DslKind {
        /// A package archive is malformed or cannot be read.
        Archive = "archive",
        /// A package has no usable `manifest.yaml`.
        Manifest = "manifest",
        /// A `Classes:` entry names a file the package lacks or cannot use.
        MissingClassFile = "missing-class-file",
        /// A `Classes:` entry names a file outside the package.
        ClassPath = "class-path",
        /// A class file is empty.
        EmptyClassFile = "empty-class-file",
        /// A class file defines another class than its `Classes:` entry names.
        ClassName = "class-name",
        /// A class definition is malformed.
        ClassSyntax = "class-syntax",
        /// A method definition is malformed.
        MethodSyntax = "method-syntax",
        /// A bundled core-library class is malformed.
        Class = "class",
        /// A YAQL expression of a class does not parse.
        YaqlSyntax = "yaql-syntax",
        /// A contract expression is malformed.
        ContractSyntax = "contract-syntax",
        /// A class names a class no package defines.
        UnknownClass = "unknown-class",
        /// A class names a class of a package its package does not require.
        ClassNotRequired = "class-not-required",
        /// Classes extend each other in a cycle.
        CyclicExtends = "cyclic-extends",
        /// A package this one requires does not load.
        Dependency = "dependency",
        /// A call names a function that no class or library defines.
        UndefinedFunction = "undefined-function",
        /// A call names a method its receiver's class does not have.
        UnknownMethod = "unknown-method",
        /// A statement can never run.
        UnreachableCode = "unreachable-code",
        /// A package is Murano's own core library, set aside for the bundled one.
        CoreLibrary = "core-library",
        /// A required package is in no package directory.
        MissingPackage = "missing-package",
        /// Two directories hold the same package and version.
        DuplicatePackage = "duplicate-package",
        /// Two packages require versions of one package that cannot both be met.
        VersionConflict = "version-conflict",
        /// Packages require each other in a cycle.
        CyclicRequire = "cyclic-require",
        /// A version range in a `Require:` is malformed.
        VersionRange = "version-range",
    }
}
