//! Errors raised by parsing and evaluation, with the kind vocabulary of the
//! conformance protocol (each kind mirrors one exception class of the reference).

use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// What went wrong; `as_str` gives the stable protocol name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    Lexical,
    Grammar,
    NoFunction,
    NoMethod,
    NoMatchingFunction,
    NoMatchingMethod,
    AmbiguousFunction,
    AmbiguousMethod,
    MappingTranslation,
    Argument,
    CollectionTooLarge,
    MemoryQuota,
    Yaql,
    Key,
    Index,
    StopIteration,
    ZeroDivision,
    Overflow,
    Regex,
    Recursion,
    Assertion,
    Type,
    Value,
    Attribute,
    Arithmetic,
    Timeout,
    /// The evaluation's operation budget ran out.
    OperationLimit,
    /// The host's interrupt hook stopped the evaluation.
    Interrupted,
    /// A host function failed; [`Error::host_payload`] gives the host's
    /// own error value when it attached one.
    Host,
    Other,
}

impl ErrorKind {
    /// The protocol name of the kind (`no_matching_method`, `key`, ...).
    pub fn as_str(self) -> &'static str {
        use ErrorKind::*;
        match self {
            Lexical => "lexical",
            Grammar => "grammar",
            NoFunction => "no_function",
            NoMethod => "no_method",
            NoMatchingFunction => "no_matching_function",
            NoMatchingMethod => "no_matching_method",
            AmbiguousFunction => "ambiguous_function",
            AmbiguousMethod => "ambiguous_method",
            MappingTranslation => "mapping_translation",
            Argument => "argument",
            CollectionTooLarge => "collection_too_large",
            MemoryQuota => "memory_quota",
            Yaql => "yaql",
            Key => "key",
            Index => "index",
            StopIteration => "stop_iteration",
            ZeroDivision => "zero_division",
            Overflow => "overflow",
            Regex => "regex",
            Recursion => "recursion",
            Assertion => "assertion",
            Type => "type",
            Value => "value",
            Attribute => "attribute",
            Arithmetic => "arithmetic",
            Timeout => "timeout",
            OperationLimit => "operation_limit",
            Interrupted => "interrupted",
            Host => "host",
            Other => "other",
        }
    }

    /// True for the two parse-time kinds.
    pub fn is_parse(self) -> bool {
        matches!(self, ErrorKind::Lexical | ErrorKind::Grammar)
    }
}

/// A YAQL error: a kind, a message and, when known, a byte position (the
/// fields of [`ErrorData`], read and written through the error).
///
/// A host error ([`Error::host`]) also carries a value of the host's own
/// type through the evaluation, untouched, for the embedder to take back
/// ([`Error::host_payload`], [`Error::take_host_payload`]). Errors are equal
/// when kind, message and position are, and both carry no payload or the
/// same one (compared by pointer: clones of an error share its payload);
/// the receiver of a method-resolution error is not compared.
///
/// The data is behind one pointer, so that an error is a word and every
/// `Result` of the evaluator is no larger than its value and a tag: items
/// pass through each step of a lazy sequence as a `Result<Option<Value>>`.
#[derive(Clone, PartialEq)]
pub struct Error(Box<ErrorData>);

/// The parts of an [`Error`].
#[derive(Clone, Debug)]
pub struct ErrorData {
    pub kind: ErrorKind,
    pub message: String,
    /// Byte offset in the expression: where a parse error is, or the node
    /// whose evaluation failed.
    pub position: Option<usize>,
    payload: Option<Rc<HostPayload>>,
    /// The receiver of a method call that found no method to run (see
    /// [`Error::receiver`]).
    receiver: Option<crate::Value>,
}

struct HostPayload(Box<dyn Any>);

impl fmt::Debug for HostPayload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HostPayload")
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .field("position", &self.position)
            .field("payload", &self.payload)
            .finish()
    }
}

impl std::ops::Deref for Error {
    type Target = ErrorData;

    #[inline]
    fn deref(&self) -> &ErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    #[inline]
    fn deref_mut(&mut self) -> &mut ErrorData {
        &mut self.0
    }
}

impl PartialEq for ErrorData {
    fn eq(&self, other: &ErrorData) -> bool {
        self.kind == other.kind
            && self.message == other.message
            && self.position == other.position
            && match (&self.payload, &other.payload) {
                (None, None) => true,
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                _ => false,
            }
    }
}

impl Error {
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(ErrorData {
            kind,
            message: message.into(),
            position: None,
            payload: None,
            receiver: None,
        }))
    }

    #[cold]
    pub fn at(kind: ErrorKind, message: impl Into<String>, position: usize) -> Error {
        let mut e = Error::new(kind, message);
        e.position = Some(position);
        e
    }

    /// The error's message, moved out.
    pub fn into_message(self) -> String {
        self.0.message
    }

    /// A host error (kind [`ErrorKind::Host`]) carrying `payload`, a value of
    /// the host's own error type, through the evaluation unchanged.
    pub fn host<T: Any>(payload: T, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Host, message).with_host_payload(payload)
    }

    /// Attach a host payload to an error of any kind: for host errors that
    /// should act as one of the library's kinds (a host's key error as
    /// [`ErrorKind::Key`]) yet come back to the host as its own value.
    pub fn with_host_payload<T: Any>(mut self, payload: T) -> Error {
        self.payload = Some(Rc::new(HostPayload(Box::new(payload))));
        self
    }

    /// The host payload, if the error carries one of type `T`.
    pub fn host_payload<T: Any>(&self) -> Option<&T> {
        self.payload.as_ref()?.0.downcast_ref()
    }

    /// Does the error carry a host payload (of any type)?
    pub fn has_host_payload(&self) -> bool {
        self.payload.is_some()
    }

    /// Move the host payload of type `T` out of the error. `None` when there
    /// is none of that type, or when a clone of this error still shares it
    /// (then [`Error::host_payload`] borrows it).
    pub fn take_host_payload<T: Any>(&mut self) -> Option<T> {
        let rc = self
            .payload
            .take_if(|p| p.0.is::<T>() && Rc::strong_count(p) == 1)?;
        let boxed = Rc::try_unwrap(rc).ok()?.0;
        boxed.downcast().ok().map(|b| *b)
    }

    /// A method-resolution error (no method of the name, none matching
    /// the arguments, more than one) with the receiver of the call, which
    /// hosts may show as the reference does (`... for receiver (1, 2)`).
    pub fn with_receiver(mut self, receiver: crate::Value) -> Error {
        self.receiver = Some(receiver);
        self
    }

    /// The receiver of a method call that found no method to run.
    pub fn receiver(&self) -> Option<&crate::Value> {
        self.receiver.as_ref()
    }

    pub fn type_err(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Type, message)
    }

    pub fn value_err(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Value, message)
    }

    /// Render with a caret line under `expr` when the position is known.
    pub fn render(&self, expr: &str) -> String {
        let head = self.headline();
        match self.position {
            Some(pos) => {
                let (shown, col) = excerpt(expr, pos);
                format!("{head}\n  {shown}\n  {}^", " ".repeat(col))
            }
            None => head,
        }
    }

    /// The kind and the message (the kind alone when the message is empty,
    /// as the reference's StopIteration of an empty sequence is).
    fn headline(&self) -> String {
        match self.message.as_str() {
            "" => self.kind.as_str().to_string(),
            m => format!("{}: {m}", self.kind.as_str()),
        }
    }
}

/// Characters of an expression shown before and after an error's position
/// when the expression is too long to show whole.
const EXCERPT_BEFORE: usize = 60;
const EXCERPT_AFTER: usize = 100;

/// The text of `expr` shown around byte offset `pos` (a window with `…` at
/// the cut ends when the expression is long, so an error in a megabyte of
/// text prints a line) and the caret's column in it.
fn excerpt(expr: &str, pos: usize) -> (String, usize) {
    let at = expr
        .get(..pos.min(expr.len()))
        .map_or(0, |s| s.chars().count());
    let total = expr.chars().count();
    if total <= EXCERPT_BEFORE + EXCERPT_AFTER {
        return (expr.to_string(), at);
    }
    let start = at.saturating_sub(EXCERPT_BEFORE);
    let end = (at + EXCERPT_AFTER).min(total);
    let mut shown = String::new();
    if start > 0 {
        shown.push('…');
    }
    shown.extend(expr.chars().skip(start).take(end - start));
    if end < total {
        shown.push('…');
    }
    (shown, at - start + usize::from(start > 0))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{} (at {}): {}", self.kind.as_str(), p, self.message),
            None => f.write_str(&self.headline()),
        }
    }
}

impl std::error::Error for Error {}

impl From<vetro_pycompat::time::TimeError> for Error {
    fn from(e: vetro_pycompat::time::TimeError) -> Error {
        Error::value_err(e.0)
    }
}

/// A parse error keeps its kind, message and position.
impl From<vetro_yaql_syntax::SyntaxError> for Error {
    fn from(e: vetro_yaql_syntax::SyntaxError) -> Error {
        let kind = match e.kind {
            vetro_yaql_syntax::SyntaxErrorKind::Lexical => ErrorKind::Lexical,
            vetro_yaql_syntax::SyntaxErrorKind::Grammar => ErrorKind::Grammar,
        };
        Error::at(kind, e.message, e.position)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

// An error is one pointer, and a result of a value (or of an item of a
// sequence) no larger than the value and its tag.
const _: () = {
    use std::mem::size_of;
    assert!(size_of::<Error>() == size_of::<usize>());
    assert!(size_of::<Result<crate::Value>>() <= size_of::<crate::Value>());
    assert!(size_of::<Result<Option<crate::Value>>>() <= size_of::<crate::Value>());
};
