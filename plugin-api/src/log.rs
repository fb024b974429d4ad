//! Logging across the boundary. Each plugin has its own copy of `tracing`, so
//! its events never reach the host's subscriber on their own: the kit installs
//! a small subscriber in the plugin that forwards every event through a callback
//! the host passed at load, and the host re-emits it under target `plugin`.

use std::fmt::Write as _;
use std::sync::OnceLock;

use abi_stable::std_types::RStr;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

use crate::abi::RawLogSink;

/// Level numbers used across the boundary: 1 = error .. 5 = trace, 0 = off.
fn level_number(level: &Level) -> u8 {
    match *level {
        Level::ERROR => 1,
        Level::WARN => 2,
        Level::INFO => 3,
        Level::DEBUG => 4,
        Level::TRACE => 5,
    }
}

/// Plugin side: the subscriber that forwards events to the host.
struct Forwarder {
    sink: RawLogSink,
}

/// Collects an event's fields into one line, the message first.
struct LineWriter(String);

impl Visit for LineWriter {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
}

impl Subscriber for Forwarder {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        level_number(metadata.level()) <= self.sink.max_level
    }
    fn new_span(&self, _span: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _span: &Id, _values: &Record<'_>) {}
    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut line = LineWriter(String::new());
        event.record(&mut line);
        let meta = event.metadata();
        (self.sink.log)(
            level_number(meta.level()),
            RStr::from_str(crate::__private::plugin_name()),
            RStr::from_str(meta.target()),
            RStr::from_str(&line.0),
        );
    }
    fn enter(&self, _span: &Id) {}
    fn exit(&self, _span: &Id) {}
}

static INSTALLED: OnceLock<()> = OnceLock::new();

/// Plugin side, called by the host at load: route this plugin's `tracing`
/// events to `sink`, up to `max_level`.
pub(crate) extern "C" fn set_logger(sink: RawLogSink) {
    INSTALLED.get_or_init(|| {
        let _ = tracing::subscriber::set_global_default(Forwarder { sink });
    });
}

/// Plugin side: a panic's message is already in the error the host receives;
/// log it at debug level instead of printing to stderr.
pub(crate) fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        tracing::debug!("panic: {info}");
    }));
}

/// Host side: the sink handed to every plugin at load.
pub(crate) fn host_sink() -> RawLogSink {
    RawLogSink { log: host_log, max_level: host_max_level() }
}

/// Host side: re-emits a plugin's event under target `plugin`.
extern "C" fn host_log(level: u8, plugin: RStr<'_>, target: RStr<'_>, message: RStr<'_>) {
    let (plugin, target, message) = (plugin.as_str(), target.as_str(), message.as_str());
    match level {
        1 => tracing::error!(target: "plugin", plugin, origin = target, "{message}"),
        2 => tracing::warn!(target: "plugin", plugin, origin = target, "{message}"),
        3 => tracing::info!(target: "plugin", plugin, origin = target, "{message}"),
        4 => tracing::debug!(target: "plugin", plugin, origin = target, "{message}"),
        _ => tracing::trace!(target: "plugin", plugin, origin = target, "{message}"),
    }
}

/// Host side: the most verbose level the host's subscriber currently wants.
fn host_max_level() -> u8 {
    match tracing::level_filters::LevelFilter::current().into_level() {
        Some(level) => level_number(&level),
        None => 0,
    }
}
