//! The WebAssembly interface of a kit variant: what `export_plugin!` exports
//! when the plugin is built for `wasm32-unknown-unknown`. The host (see
//! `host::wasm`) calls these functions through the module's exports; the
//! module imports nothing.
//!
//! The interface, version [`INTERFACE_VERSION`] (every value an `i32`, `i64`
//! or `f64`):
//! - Game states are handles (`i32` at least 0) into a table kept here; a
//!   call that makes a state returns its handle, or a negative error class.
//! - Text goes in through the input buffer: the host asks
//!   `arbiter_input(len)` for a pointer, writes the bytes there and passes
//!   their lengths to the call, which reads them in order.
//! - Text comes out as an `i64` packing the pointer (high 32 bits) and the
//!   length (low 32) of bytes in the output buffer, valid until the next call;
//!   a negative value is an error class, its message then in
//!   `arbiter_output()`.
//! - Error classes are [`crate::Error`]'s kinds as numbers, negated.
//! - A panic aborts the call (WebAssembly traps); its message is kept for
//!   `arbiter_panic_message()`, and the host treats the whole module
//!   instance as faulted.

use std::any::Any;
use std::cell::RefCell;

use super::adapter::{GameAdapter, VariantAdapter};
use super::{Game, Variant};
use crate::{Error, Outcome, Viewer};

/// The version of this interface; the host refuses a module of another.
pub const INTERFACE_VERSION: i32 = 1;

/// A game state of any variant, as the table holds it.
pub trait DynGame: Any {
    #[doc(hidden)]
    fn adapter_any(&self) -> &dyn Any;
    #[doc(hidden)]
    fn clone_game(&self) -> Box<dyn DynGame>;
    #[doc(hidden)]
    fn to_move(&self) -> u32;
    #[doc(hidden)]
    fn status(&self) -> crate::Status;
    #[doc(hidden)]
    fn legal_moves(&self, out: &mut Vec<u64>) -> Result<(), Error>;
    #[doc(hidden)]
    fn apply(&mut self, mv: u64) -> Result<(), Error>;
    #[doc(hidden)]
    fn copy_from(&mut self, other: &dyn DynGame) -> Result<(), Error>;
    #[doc(hidden)]
    fn perft(&self, depth: u32) -> Result<u64, Error>;
    #[doc(hidden)]
    fn move_text(&self, mv: u64, viewer: Viewer) -> Result<String, Error>;
    #[doc(hidden)]
    fn parse_move(&self, text: &str) -> Result<u64, Error>;
    #[doc(hidden)]
    fn position_text(&self) -> String;
    #[doc(hidden)]
    fn observe(&self, viewer: Viewer) -> Result<(String, String), Error>;
    #[doc(hidden)]
    fn sample_world(&self, viewer: Viewer, seed: u64) -> Result<Box<dyn DynGame>, Error>;
    #[doc(hidden)]
    fn evaluate(&self, player: u32) -> Option<f64>;
    #[doc(hidden)]
    fn can_win(&self, player: u32) -> bool;
    #[doc(hidden)]
    fn call_json(&mut self, method: &str, args: &str) -> Result<String, Error>;
}

impl<G: Game> DynGame for GameAdapter<G> {
    fn adapter_any(&self) -> &dyn Any {
        self
    }
    fn clone_game(&self) -> Box<dyn DynGame> {
        Box::new(self.clone())
    }
    fn to_move(&self) -> u32 {
        GameAdapter::to_move(self)
    }
    fn status(&self) -> crate::Status {
        GameAdapter::status(self)
    }
    fn legal_moves(&self, out: &mut Vec<u64>) -> Result<(), Error> {
        GameAdapter::legal_moves(self, out)
    }
    fn apply(&mut self, mv: u64) -> Result<(), Error> {
        GameAdapter::apply(self, mv)
    }
    fn copy_from(&mut self, other: &dyn DynGame) -> Result<(), Error> {
        match other.adapter_any().downcast_ref::<GameAdapter<G>>() {
            Some(o) => GameAdapter::copy_from(self, o),
            None => Err(Error::unsupported("copy_from: the other state belongs to another variant")),
        }
    }
    fn perft(&self, depth: u32) -> Result<u64, Error> {
        GameAdapter::perft(self, depth)
    }
    fn move_text(&self, mv: u64, viewer: Viewer) -> Result<String, Error> {
        GameAdapter::move_text(self, mv, viewer)
    }
    fn parse_move(&self, text: &str) -> Result<u64, Error> {
        GameAdapter::parse_move(self, text)
    }
    fn position_text(&self) -> String {
        GameAdapter::position_text(self)
    }
    fn observe(&self, viewer: Viewer) -> Result<(String, String), Error> {
        GameAdapter::observe(self, viewer)
    }
    fn sample_world(&self, viewer: Viewer, seed: u64) -> Result<Box<dyn DynGame>, Error> {
        GameAdapter::sample_world(self, viewer, seed).map(|g| Box::new(g) as Box<dyn DynGame>)
    }
    fn evaluate(&self, player: u32) -> Option<f64> {
        GameAdapter::evaluate(self, player)
    }
    fn can_win(&self, player: u32) -> bool {
        GameAdapter::can_win(self, player)
    }
    fn call_json(&mut self, method: &str, args: &str) -> Result<String, Error> {
        GameAdapter::call_json(self, method, args)
    }
}

/// A variant of any game type, as the plugin's list holds it.
pub trait DynVariant {
    #[doc(hidden)]
    fn id(&self) -> &str;
    #[doc(hidden)]
    fn info_json(&self) -> &str;
    #[doc(hidden)]
    fn new_game(&self, options: &str) -> Result<Box<dyn DynGame>, Error>;
    #[doc(hidden)]
    #[allow(clippy::wrong_self_convention)]
    fn from_position(&self, text: &str, options: &str) -> Result<Box<dyn DynGame>, Error>;
}

impl<V: Variant> DynVariant for VariantAdapter<V> {
    fn id(&self) -> &str {
        VariantAdapter::id(self)
    }
    fn info_json(&self) -> &str {
        VariantAdapter::info_json(self)
    }
    fn new_game(&self, options: &str) -> Result<Box<dyn DynGame>, Error> {
        VariantAdapter::new_game(self, options).map(|g| Box::new(g) as Box<dyn DynGame>)
    }
    fn from_position(&self, text: &str, options: &str) -> Result<Box<dyn DynGame>, Error> {
        VariantAdapter::from_position(self, text, options).map(|g| Box::new(g) as Box<dyn DynGame>)
    }
}

/// One exported variant, as `export_plugin!` lists them.
pub type Factory = Box<dyn DynVariant>;

/// Wraps a variant for the list.
pub fn factory<V: Variant>(variant: V) -> Result<Factory, Error> {
    VariantAdapter::new(variant).map(|a| Box::new(a) as Factory)
}

/// Everything the module keeps between calls.
#[derive(Default)]
struct Guest {
    /// The plugin's metadata as JSON (name, version, authors...).
    metadata: String,
    variants: Vec<Factory>,
    /// Game states by handle; `None` is a free slot.
    states: Vec<Option<Box<dyn DynGame>>>,
    free: Vec<usize>,
    input: Vec<u8>,
    output: Vec<u8>,
    moves: Vec<u64>,
    /// The last call's number that does not fit the return value (a parsed move id).
    number: u64,
}

thread_local! {
    static GUEST: RefCell<Guest> = RefCell::new(Guest::default());
    /// The last panic's message; apart from [`GUEST`], which the panicking
    /// call may hold.
    static PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

fn with<T>(f: impl FnOnce(&mut Guest) -> T) -> T {
    GUEST.with(|g| f(&mut g.borrow_mut()))
}

/// Puts `bytes` in the output buffer and packs where they are.
fn output(g: &mut Guest, bytes: &[u8]) -> i64 {
    g.output.clear();
    g.output.extend_from_slice(bytes);
    ((g.output.as_ptr() as usize as i64) << 32) | g.output.len() as i64
}

/// The error class, negated, with its message in the output buffer.
fn fail(g: &mut Guest, e: Error) -> i64 {
    output(g, e.message.as_bytes());
    -i64::from(e.kind_code())
}

/// A text result as an `i64` (see the module's documentation).
fn text(g: &mut Guest, r: Result<String, Error>) -> i64 {
    match r {
        Ok(s) => output(g, s.as_bytes()),
        Err(e) => fail(g, e),
    }
}

/// A new state's handle, or the error class negated.
fn handle(g: &mut Guest, r: Result<Box<dyn DynGame>, Error>) -> i32 {
    match r {
        Ok(state) => match g.free.pop() {
            Some(slot) => {
                g.states[slot] = Some(state);
                slot as i32
            }
            None => {
                g.states.push(Some(state));
                (g.states.len() - 1) as i32
            }
        },
        Err(e) => fail(g, e) as i32,
    }
}

/// `Ok(())` as 0, an error as its class negated.
fn status_code(g: &mut Guest, r: Result<(), Error>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => fail(g, e) as i32,
    }
}

fn no_state(h: i32) -> Error {
    Error::unsupported(format!("no game state with handle {h}"))
}

/// The state behind `h`, taken out of the table for the call (so that the
/// call may use the rest of the guest) and put back by [`put`].
fn take(g: &mut Guest, h: i32) -> Result<Box<dyn DynGame>, Error> {
    usize::try_from(h).ok().and_then(|i| g.states.get_mut(i)).and_then(Option::take).ok_or_else(|| no_state(h))
}

fn put(g: &mut Guest, h: i32, state: Box<dyn DynGame>) {
    g.states[h as usize] = Some(state);
}

/// Runs `f` on the state behind `h`.
fn on<T>(h: i32, f: impl FnOnce(&mut Guest, &mut dyn DynGame) -> T, missing: impl FnOnce(&mut Guest, Error) -> T) -> T {
    with(|g| match take(g, h) {
        Ok(mut state) => {
            let r = f(g, state.as_mut());
            put(g, h, state);
            r
        }
        Err(e) => missing(g, e),
    })
}

/// The input buffer's two texts, of these lengths, in order.
fn inputs(g: &Guest, first: i32, second: i32) -> Result<(String, String), Error> {
    let (a, b) = (first.max(0) as usize, second.max(0) as usize);
    let bytes = g.input.get(..a + b).ok_or_else(|| Error::unsupported("input lengths beyond the input buffer"))?;
    let text = |b: &[u8]| String::from_utf8(b.to_vec()).map_err(|_| Error::bad_notation("input is not UTF-8"));
    Ok((text(&bytes[..a])?, text(&bytes[a..])?))
}

/// `arbiter_interface`: the interface version.
pub fn interface() -> i32 {
    INTERFACE_VERSION
}

/// `arbiter_init`: keeps the plugin's identity and builds its variants;
/// returns how many. A variant that fails to build panics (the host reports
/// the message).
pub fn init(info: crate::__private::CrateInfo, variants: fn() -> Vec<Factory>) -> i32 {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        let at = info.location().map(|l| format!(" (at {}:{})", l.file(), l.line())).unwrap_or_default();
        PANIC.with(|p| *p.borrow_mut() = format!("{message}{at}"));
    }));
    crate::__private::set_identity(info);
    let list = variants();
    with(|g| {
        g.metadata = crate::__private::metadata_json();
        g.variants = list;
        g.variants.len() as i32
    })
}

/// `arbiter_describe`: the plugin as JSON: `{"name", "version",
/// "api_version", "metadata", "variants": [info card...]}`.
pub fn describe() -> i64 {
    with(|g| {
        let cards: Vec<&str> = g.variants.iter().map(|v| v.info_json()).collect();
        let id = crate::__private::identity();
        let json = format!(
            "{{\"name\":{},\"version\":{},\"api_version\":{},\"metadata\":{},\"variants\":[{}]}}",
            serde_json::Value::from(id.0),
            serde_json::Value::from(id.1),
            serde_json::Value::from(crate::API_VERSION),
            g.metadata,
            cards.join(",")
        );
        output(g, json.as_bytes())
    })
}

/// `arbiter_input`: room for `len` bytes of input; where to write them.
pub fn input(len: i32) -> i32 {
    with(|g| {
        g.input.resize(len.max(0) as usize, 0);
        g.input.as_mut_ptr() as usize as i32
    })
}

/// `arbiter_output`: the output buffer (an error's message after a failed call).
pub fn output_buffer() -> i64 {
    with(|g| ((g.output.as_ptr() as usize as i64) << 32) | g.output.len() as i64)
}

/// `arbiter_panic_message`: the last panic's message, empty if none.
pub fn panic_message() -> i64 {
    // Not through the output buffer: the call that panicked still holds
    // the guest (it never unwound).
    PANIC.with(|p| {
        let p = p.borrow();
        ((p.as_ptr() as usize as i64) << 32) | p.len() as i64
    })
}

/// `arbiter_number`: the last call's extra number (a parsed move id).
pub fn number() -> i64 {
    with(|g| g.number as i64)
}

/// `arbiter_new_game(variant, options_len)`.
pub fn new_game(variant: i32, options_len: i32) -> i32 {
    with(|g| {
        let r = inputs(g, options_len, 0).and_then(|(options, _)| {
            let v = usize::try_from(variant).ok().and_then(|i| g.variants.get(i)).ok_or_else(|| no_variant(variant))?;
            v.new_game(&options)
        });
        handle(g, r)
    })
}

/// `arbiter_from_position(variant, text_len, options_len)`.
pub fn from_position(variant: i32, text_len: i32, options_len: i32) -> i32 {
    with(|g| {
        let r = inputs(g, text_len, options_len).and_then(|(text, options)| {
            let v = usize::try_from(variant).ok().and_then(|i| g.variants.get(i)).ok_or_else(|| no_variant(variant))?;
            v.from_position(&text, &options)
        });
        handle(g, r)
    })
}

fn no_variant(index: i32) -> Error {
    Error::unsupported(format!("no variant number {index} in this plugin"))
}

/// `arbiter_clone(h)`: a new handle to a copy.
pub fn clone(h: i32) -> i32 {
    on(h, |g, s| handle(g, Ok(s.clone_game())), |g, e| handle(g, Err(e)))
}

/// `arbiter_drop(h)`: frees the state.
pub fn drop_state(h: i32) {
    with(|g| {
        if take(g, h).is_ok() {
            g.free.push(h as usize);
        }
    })
}

/// `arbiter_copy_from(dst, src)`.
pub fn copy_from(dst: i32, src: i32) -> i32 {
    if dst == src {
        return 0;
    }
    with(|g| {
        let r = match (take(g, dst), take(g, src)) {
            (Ok(mut d), Ok(s)) => {
                let r = d.copy_from(s.as_ref());
                put(g, dst, d);
                put(g, src, s);
                r
            }
            (Ok(d), Err(e)) => {
                put(g, dst, d);
                Err(e)
            }
            (Err(e), Ok(s)) => {
                put(g, src, s);
                Err(e)
            }
            (Err(e), Err(_)) => Err(e),
        };
        status_code(g, r)
    })
}

/// `arbiter_to_move(h)`.
pub fn to_move(h: i32) -> i32 {
    on(h, |_, s| s.to_move() as i32, |_, _| 0)
}

/// `arbiter_status(h)`: the outcome (low 8 bits: 0 ongoing, 1 win, 2 draw,
/// 255 faulted), the winner (the next 32), and whether a reason or a
/// claimable draw is to be read (bit 40), by `arbiter_status_text(h)`.
pub fn status(h: i32) -> i64 {
    on(
        h,
        |_, s| {
            let st = s.status();
            let (outcome, winner) = match st.outcome {
                Outcome::Ongoing => (0, 0),
                Outcome::Win(p) => (1, p),
                Outcome::Draw => (2, 0),
                Outcome::Faulted => (255, 0),
            };
            let texts = !st.reason.is_empty() || !st.claimable.is_empty();
            outcome | (i64::from(winner) << 8) | (i64::from(texts) << 40)
        },
        |_, _| 255,
    )
}

/// `arbiter_status_text(h)`: the reason and the claimable draw, a NUL between.
pub fn status_text(h: i32) -> i64 {
    on(
        h,
        |g, s| {
            let st = s.status();
            text(g, Ok(format!("{}\0{}", st.reason, st.claimable)))
        },
        fail,
    )
}

/// `arbiter_legal_moves(h)`: the moves, packed as text is (8 bytes each,
/// little-endian), or the error class negated.
pub fn legal_moves(h: i32) -> i64 {
    on(
        h,
        |g, s| {
            let mut moves = std::mem::take(&mut g.moves);
            let r = s.legal_moves(&mut moves);
            let packed = match r {
                Ok(()) => ((moves.as_ptr() as usize as i64) << 32) | (moves.len() * 8) as i64,
                Err(e) => fail(g, e),
            };
            g.moves = moves;
            packed
        },
        fail,
    )
}

/// `arbiter_apply(h, move)`.
pub fn apply(h: i32, mv: i64) -> i32 {
    on(h, |g, s| status_code(g, s.apply(mv as u64)), |g, e| status_code(g, Err(e)))
}

/// `arbiter_perft(h, depth)`: the count, or the error class negated.
pub fn perft(h: i32, depth: i32) -> i64 {
    on(
        h,
        |g, s| match s.perft(depth.max(0) as u32) {
            Ok(n) => n.min(i64::MAX as u64) as i64,
            Err(e) => fail(g, e),
        },
        fail,
    )
}

/// `arbiter_move_text(h, move, viewer)`.
pub fn move_text(h: i32, mv: i64, viewer: i32) -> i64 {
    on(h, |g, s| text(g, s.move_text(mv as u64, Viewer::from_code(viewer as u32))), fail)
}

/// `arbiter_parse_move(h, text_len)`: 0 with the id in `arbiter_number()`,
/// or the error class negated.
pub fn parse_move(h: i32, text_len: i32) -> i32 {
    on(
        h,
        |g, s| {
            let r = inputs(g, text_len, 0).and_then(|(t, _)| s.parse_move(&t)).map(|id| g.number = id);
            status_code(g, r)
        },
        |g, e| status_code(g, Err(e)),
    )
}

/// `arbiter_position_text(h)`.
pub fn position_text(h: i32) -> i64 {
    on(h, |g, s| text(g, Ok(s.position_text())), fail)
}

/// `arbiter_observe(h, viewer)`: the text's length (4 bytes, little-endian),
/// the text, then the observation's JSON.
pub fn observe(h: i32, viewer: i32) -> i64 {
    on(
        h,
        |g, s| match s.observe(Viewer::from_code(viewer as u32)) {
            Ok((t, json)) => {
                let mut bytes = (t.len() as u32).to_le_bytes().to_vec();
                bytes.extend_from_slice(t.as_bytes());
                bytes.extend_from_slice(json.as_bytes());
                output(g, &bytes)
            }
            Err(e) => fail(g, e),
        },
        fail,
    )
}

/// `arbiter_sample_world(h, viewer, seed)`: a new handle.
pub fn sample_world(h: i32, viewer: i32, seed: i64) -> i32 {
    on(
        h,
        |g, s| {
            let r = s.sample_world(Viewer::from_code(viewer as u32), seed as u64);
            handle(g, r)
        },
        |g, e| handle(g, Err(e)),
    )
}

/// `arbiter_evaluate(h, player)`: the value, NaN for none.
pub fn evaluate(h: i32, player: i32) -> f64 {
    on(h, |_, s| s.evaluate(player as u32).unwrap_or(f64::NAN), |_, _| f64::NAN)
}

/// `arbiter_can_win(h, player)`: 1 or 0.
pub fn can_win(h: i32, player: i32) -> i32 {
    on(h, |_, s| i32::from(s.can_win(player as u32)), |_, _| 1)
}

/// `arbiter_call_json(h, method_len, args_len)`.
pub fn call_json(h: i32, method_len: i32, args_len: i32) -> i64 {
    on(
        h,
        |g, s| {
            let r = inputs(g, method_len, args_len).and_then(|(m, a)| s.call_json(&m, &a));
            text(g, r)
        },
        fail,
    )
}
