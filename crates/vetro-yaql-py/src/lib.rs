//! `yaql._vetro_yaql`: vetro's YAQL engine as a CPython extension module.
//!
//! The Python half of the package (`python/yaql/`) provides the reference's
//! module layout and classes; this module is the engine underneath: parsing
//! with a bounded cache, evaluation, value conversion, Python callbacks and
//! error mapping.

pub mod convert;
pub mod depth;
pub mod engine;
pub mod errors;
pub mod evalctx;
pub mod host;
pub mod input;
pub mod lazies;
pub mod outdict;
pub mod phases;
pub mod pyobj;
pub mod shim;
pub mod signals;
pub mod staged;
pub mod statement;
pub mod wrappers;
pub mod yaqlized;

use pyo3::prelude::*;

/// mimalloc for the engine's allocations (Python's objects keep Python's
/// allocator): evaluation and conversion build and drop many small values,
/// which it serves several times faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _vetro_yaql(m: &Bound<'_, PyModule>) -> PyResult<()> {
    signals::init(m.py())?;
    m.add_class::<engine::Core>()?;
    m.add_class::<statement::EngineBase>()?;
    m.add_class::<statement::Statement>()?;
    m.add_class::<evalctx::EvalContext>()?;
    m.add_class::<wrappers::PyCallable>()?;
    m.add_class::<wrappers::PyIterator>()?;
    m.add_class::<wrappers::PyHost>()?;
    m.add_function(wrap_pyfunction!(phases::phase_times, m)?)?;
    Ok(())
}
