//! `--packages DIR`: a package catalog on disk for `run`, `test`, `check`
//! (and any command that loads packages): what the packages named on the
//! command line require, and the classes an object model names, are taken
//! from the package folders under these directories.

use std::path::PathBuf;
use vetro_diag::Diagnostic;
use vetro_diag::SourceMap;
use vetro_dsl::host::{self, Library};
use vetro_dsl::package::{Catalog, Package, Resolver};

#[derive(clap::Args, Clone, Debug, Default)]
pub struct CatalogArgs {
    /// A catalog directory (repeatable): every folder under it holding a
    /// manifest.yaml is a package, by its FullName and Version. `Require:`
    /// entries and model classes are resolved from them (highest version in
    /// range); only the packages used are parsed.
    #[arg(long = "packages", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
}

impl CatalogArgs {
    /// The library of `packages` (folders given on the command line), with
    /// their dependencies from the catalog when one is given. Without
    /// `--packages` only the given folders are loaded, as before.
    pub fn library(
        &self,
        packages: &[PathBuf],
        model: Option<&serde_json::Value>,
    ) -> Result<Library, Vec<Diagnostic>> {
        if self.dirs.is_empty() {
            return Ok(Library::load(packages));
        }
        host::load_with_catalog(packages, &self.dirs, model)
    }

    /// The packages of `lib` that came from the catalog (not given).
    pub fn taken<'a>(
        &self,
        lib: &'a Library,
        given: &[PathBuf],
    ) -> impl Iterator<Item = &'a vetro_dsl::package::Package> {
        let dirs = self.dirs.clone();
        let given = given.to_vec();
        lib.packages
            .iter()
            .filter(move |p| !given.contains(&p.root) && dirs.iter().any(|d| p.root.starts_with(d)))
    }

    /// The dependencies of `given` (packages loaded by the caller), loaded
    /// into `sources`, and the resolution problems. With no `--packages`
    /// every `Require:` must name a given package.
    pub fn dependencies(
        &self,
        given: &[Package],
        sources: &mut SourceMap,
    ) -> (Vec<Package>, Vec<Diagnostic>) {
        let catalog = Catalog::new(&self.dirs);
        let mut resolver = Resolver::new(&catalog);
        for p in given {
            resolver.give(p);
        }
        let (found, errors) = resolver.finish_partial();
        let deps = found
            .iter()
            .map(|r| Package::load_dir(&r.root, sources))
            .collect();
        (deps, errors.iter().map(|e| e.to_diagnostic()).collect())
    }
}
