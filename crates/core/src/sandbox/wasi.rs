//! The WASI preview 1 calls a sandboxed engine may make, written for the
//! sandbox alone: standard streams as lines shared with the host, clocks
//! that read virtual time, seeded random bytes, and no folders.
//!
//! Each call that can wait (reading input, polling, and writing a line,
//! after which the host takes the line) is async: where it would block, it
//! suspends the engine and the host's poll returns. A call resumed first
//! gives the engine the fuel the host granted meanwhile (see
//! [`super::Sandboxed::send`] and [`super::Sandboxed::begin_move`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use wasmtime::{Caller, ExternType, Linker, Memory, Module, StoreLimits, Val};

use super::files::{self, Files};
use super::{Shared, Stop};
use crate::sync::LockExt;

/// The module WASI preview 1 calls are imported from.
pub(super) const P1: &str = "wasi_snapshot_preview1";

/// What the realtime clock reads at virtual time 0: 2025-01-01 00:00:00 UTC, in ns.
const EPOCH_NS: u64 = 1_735_689_600 * 1_000_000_000;

const SUCCESS: i32 = 0;
const FAULT: i32 = 21;
const SPIPE: i32 = 70;
use files::{BADF, INVAL};

/// Calls that write, list or link files and folders: nothing granted is
/// writable, so each fails with `BADF`.
const FILE_CALLS: [&str; 19] = [
    "fd_advise",
    "fd_allocate",
    "fd_datasync",
    "fd_fdstat_set_rights",
    "fd_filestat_set_size",
    "fd_filestat_set_times",
    "fd_pread",
    "fd_pwrite",
    "fd_readdir",
    "fd_renumber",
    "fd_sync",
    "path_create_directory",
    "path_filestat_set_times",
    "path_link",
    "path_readlink",
    "path_remove_directory",
    "path_rename",
    "path_symlink",
    "path_unlink_file",
];

/// A sandboxed engine's state, as its calls see it.
pub(super) struct Ctx {
    shared: Arc<Mutex<Shared>>,
    /// The program's name, then its arguments.
    args: Vec<String>,
    /// The random bytes' generator (SplitMix64).
    random: u64,
    /// Its virtual time.
    pub(super) clock: VirtualClock,
    max_line: usize,
    /// The granted folders and the files opened in them.
    files: Files,
    /// The memory cap.
    pub(super) limits: StoreLimits,
}

impl Ctx {
    /// The state of an engine started with `args`.
    pub(super) fn new(
        shared: Arc<Mutex<Shared>>,
        args: Vec<String>,
        seed: u64,
        ips: u64,
        max_line: usize,
        files: Files,
        limits: StoreLimits,
    ) -> Ctx {
        let clock = VirtualClock { ips: ips.max(1), base_ns: 0, granted: 0 };
        Ctx { shared, args, random: seed, clock, max_line, files, limits }
    }

    /// Takes `bytes` written to standard output; whether a line was completed.
    fn write_out(&mut self, bytes: &[u8], now_ns: u64) -> bool {
        let mut shared = self.shared.lock_or_recover();
        let mut completed = false;
        for &b in bytes {
            if b == b'\n' {
                let mut line = String::from_utf8_lossy(&shared.partial).into_owned();
                if line.ends_with('\r') {
                    line.pop();
                }
                shared.partial.clear();
                shared.lines.push_back((line, now_ns));
                completed = true;
            } else if shared.partial.len() >= self.max_line {
                shared.too_long = true;
            } else {
                shared.partial.push(b);
            }
        }
        completed || shared.too_long
    }

    /// The next random word (SplitMix64: the same seed, the same bytes, on
    /// every machine and in every version).
    fn next_random(&mut self) -> u64 {
        self.random = self.random.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.random;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Virtual time: the fuel spent since the last grant, at `ips` a second,
/// after the time of that grant.
pub(super) struct VirtualClock {
    ips: u64,
    base_ns: u64,
    granted: u64,
}

impl VirtualClock {
    /// `fuel` was granted at virtual time `now_ns`.
    pub(super) fn granted(&mut self, now_ns: u64, fuel: u64) {
        self.base_ns = now_ns;
        self.granted = fuel;
    }

    /// The virtual time with `left` fuel left, in ns.
    fn now(&self, left: u64) -> u64 {
        let spent = self.granted.saturating_sub(left) as u128;
        self.base_ns + (spent * 1_000_000_000 / self.ips as u128) as u64
    }

    /// The fuel `ns` of virtual time hold.
    fn fuel_of(&self, ns: u64) -> u64 {
        (ns as u128 * self.ips as u128 / 1_000_000_000).min(u64::MAX as u128) as u64
    }
}

/// A future that is pending once: polled again, it is ready. Awaited, it
/// suspends the engine until the host polls it again.
struct Suspend(bool);

impl Future for Suspend {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            Poll::Pending
        }
    }
}

/// The engine's virtual time now, in ns.
fn now_ns(caller: &Caller<'_, Ctx>) -> u64 {
    caller.data().clock.now(caller.get_fuel().unwrap_or(0))
}

/// The engine takes a step: the fuel the host granted since its last one,
/// if any, is given now (a move's marks the move's start).
fn step(caller: &mut Caller<'_, Ctx>) -> wasmtime::Result<()> {
    let now = now_ns(caller);
    let grant = {
        let mut shared = caller.data().shared.lock_or_recover();
        shared.waiting = false;
        let grant = shared.grant.take();
        if let Some((_, true)) = grant {
            shared.move_from_ns = Some(now);
        }
        grant
    };
    if let Some((fuel, _)) = grant {
        caller.set_fuel(fuel)?;
        caller.data_mut().clock.granted(now, fuel);
    }
    Ok(())
}

/// Spends `ns` of virtual time without work (a sleep); past the fuel left,
/// the engine's time has run out.
fn sleep(caller: &mut Caller<'_, Ctx>, ns: u64) -> wasmtime::Result<()> {
    let cost = caller.data().clock.fuel_of(ns);
    let left = caller.get_fuel()?;
    if cost >= left {
        caller.set_fuel(0)?;
        return Err(Stop::OutOfTime.into());
    }
    caller.set_fuel(left - cost)?;
    Ok(())
}

/// The engine's exported memory.
fn memory(caller: &mut Caller<'_, Ctx>) -> Option<Memory> {
    caller.get_export("memory")?.into_memory()
}

/// `len` bytes at `ptr`, if they are inside `mem`.
fn bytes(mem: &[u8], ptr: i32, len: usize) -> Result<&[u8], i32> {
    let from = ptr as u32 as usize;
    mem.get(from..from.checked_add(len).ok_or(FAULT)?).ok_or(FAULT)
}

/// The same, to write.
fn bytes_mut(mem: &mut [u8], ptr: i32, len: usize) -> Result<&mut [u8], i32> {
    let from = ptr as u32 as usize;
    mem.get_mut(from..from.checked_add(len).ok_or(FAULT)?).ok_or(FAULT)
}

fn read_u32(mem: &[u8], ptr: i32) -> Result<u32, i32> {
    Ok(u32::from_le_bytes(bytes(mem, ptr, 4)?.try_into().expect("four bytes")))
}

fn write_u32(mem: &mut [u8], ptr: i32, v: u32) -> Result<(), i32> {
    bytes_mut(mem, ptr, 4)?.copy_from_slice(&v.to_le_bytes());
    Ok(())
}

fn write_u64(mem: &mut [u8], ptr: i32, v: u64) -> Result<(), i32> {
    bytes_mut(mem, ptr, 8)?.copy_from_slice(&v.to_le_bytes());
    Ok(())
}

/// The `(pointer, length)` buffers of an iovec list.
fn iovecs(mem: &[u8], list: i32, count: i32) -> Result<Vec<(i32, usize)>, i32> {
    (0..count.max(0))
        .map(|i| {
            let at = list.wrapping_add(i * 8);
            Ok((read_u32(mem, at)? as i32, read_u32(mem, at.wrapping_add(4))? as usize))
        })
        .collect()
}

/// Reads the file at `fd` into the iovec list's buffers, as far as it
/// goes: the bytes read.
fn read_file(mem: &mut [u8], files: &mut Files, fd: u32, list: i32, count: i32) -> Result<u32, i32> {
    let mut n = 0usize;
    for (ptr, len) in iovecs(mem, list, count)? {
        let got = files.read(fd, bytes_mut(mem, ptr, len)?)?;
        n += got;
        if got < len {
            break;
        }
    }
    Ok(n as u32)
}

/// A path the engine passed, as text.
fn text(mem: &[u8], ptr: i32, len: i32) -> Result<String, i32> {
    std::str::from_utf8(bytes(mem, ptr, len as u32 as usize)?).map(str::to_string).map_err(|_| INVAL)
}

/// A `filestat`: its kind at 16 and its size at 32.
fn write_stat(mem: &mut [u8], out: i32, stat: &files::Stat) -> Result<(), i32> {
    let b = bytes_mut(mem, out, 64)?;
    b.fill(0);
    b[16] = stat.kind;
    b[32..40].copy_from_slice(&stat.size.to_le_bytes());
    Ok(())
}

/// Moves what `input` holds into the iovec list's buffers, as far as they
/// go: the bytes moved.
fn scatter(mem: &mut [u8], list: i32, count: i32, input: &mut std::collections::VecDeque<u8>) -> Result<u32, i32> {
    let mut n = 0usize;
    for (ptr, len) in iovecs(mem, list, count)? {
        let take = len.min(input.len());
        for (d, b) in bytes_mut(mem, ptr, take)?.iter_mut().zip(input.drain(..take)) {
            *d = b;
        }
        n += take;
        if input.is_empty() {
            break;
        }
    }
    Ok(n as u32)
}

/// An errno as the call's result, or success.
fn errno(r: Result<(), i32>) -> i32 {
    r.err().unwrap_or(SUCCESS)
}

/// The calls written here; the rest of preview 1 are [`FILE_CALLS`] or
/// sockets.
const DEFINED: [&str; 25] = [
    "fd_read",
    "fd_write",
    "poll_oneoff",
    "fd_close",
    "fd_fdstat_get",
    "fd_fdstat_set_flags",
    "fd_filestat_get",
    "fd_seek",
    "fd_tell",
    "fd_prestat_get",
    "args_sizes_get",
    "args_get",
    "environ_sizes_get",
    "environ_get",
    "clock_res_get",
    "clock_time_get",
    "random_get",
    "proc_exit",
    "proc_raise",
    "sched_yield",
    "fd_fdstat_set_rights",
    "fd_renumber",
    "fd_prestat_dir_name",
    "path_open",
    "path_filestat_get",
];

/// Defines every call `module` imports, or says which import the sandbox
/// does not grant.
pub(super) fn define(linker: &mut Linker<Ctx>, module: &Module) -> Result<(), String> {
    define_streams(linker).map_err(|e| e.to_string())?;
    define_world(linker).map_err(|e| e.to_string())?;
    for import in module.imports() {
        let (from, name) = (import.module(), import.name());
        let refused = |what: &str| Err(format!("imports {from}::{name}: {what} are not granted in the sandbox"));
        match (from, import.ty()) {
            (P1, ExternType::Func(_)) if DEFINED.contains(&name) => {}
            (P1, ExternType::Func(_)) if name.starts_with("sock_") => return refused("sockets"),
            (P1, ExternType::Func(ty)) if FILE_CALLS.contains(&name) => {
                if ty.results().len() != 1 {
                    return Err(format!("imports {from}::{name} with a type WASI preview 1 does not give it"));
                }
                linker
                    .func_new(P1, name, ty, |_, _, results| {
                        results[0] = Val::I32(BADF);
                        Ok(())
                    })
                    .map_err(|e| e.to_string())?;
            }
            ("wasi", _) if name == "thread-spawn" => return refused("threads"),
            (_, ExternType::Memory(m)) if m.is_shared() => return refused("threads (a shared memory)"),
            _ => {
                return Err(format!(
                    "imports {from}::{name}, which the sandbox does not grant (it gives WASI preview 1's standard \
                     streams, clocks and random bytes)"
                ))
            }
        }
    }
    for export in module.exports() {
        if matches!(export.ty(), ExternType::Memory(m) if m.is_shared()) {
            return Err(format!("exports the shared memory {}: threads are not granted in the sandbox", export.name()));
        }
    }
    Ok(())
}

/// The standard streams: reading input, writing output, polling, and
/// what libc asks of a stream (its kind; it cannot seek).
fn define_streams(linker: &mut Linker<Ctx>) -> wasmtime::Result<()> {
    linker.func_wrap_async(
        P1,
        "fd_write",
        |mut caller: Caller<'_, Ctx>, (fd, list, count, written): (i32, i32, i32, i32)| {
            Box::new(async move {
                step(&mut caller)?;
                let now = now_ns(&caller);
                let Some(memory) = memory(&mut caller) else { return Ok(FAULT) };
                let (mem, ctx) = memory.data_and_store_mut(&mut caller);
                let mut out = Vec::new();
                let gathered = iovecs(mem, list, count).and_then(|bufs| {
                    bufs.iter().try_for_each(|&(ptr, len)| {
                        out.extend_from_slice(bytes(mem, ptr, len)?);
                        Ok(())
                    })
                });
                if let Err(e) = gathered {
                    return Ok(e);
                }
                let line = match fd {
                    1 => ctx.write_out(&out, now),
                    2 => false,
                    _ => return Ok(BADF),
                };
                if let Err(e) = write_u32(mem, written, out.len() as u32) {
                    return Ok(e);
                }
                if line {
                    // The host takes the line before the engine goes on.
                    Suspend(false).await;
                    step(&mut caller)?;
                }
                Ok(SUCCESS)
            })
        },
    )?;
    linker.func_wrap_async(
        P1,
        "fd_read",
        |mut caller: Caller<'_, Ctx>, (fd, list, count, read): (i32, i32, i32, i32)| {
            Box::new(async move {
                loop {
                    step(&mut caller)?;
                    if fd != 0 {
                        let Some(memory) = memory(&mut caller) else { return Ok(FAULT) };
                        let (mem, ctx) = memory.data_and_store_mut(&mut caller);
                        return Ok(errno(
                            read_file(mem, &mut ctx.files, fd as u32, list, count)
                                .and_then(|n| write_u32(mem, read, n)),
                        ));
                    }
                    let Some(memory) = memory(&mut caller) else { return Ok(FAULT) };
                    let (mem, ctx) = memory.data_and_store_mut(&mut caller);
                    let read_now = {
                        let mut shared = ctx.shared.lock_or_recover();
                        shared.waiting = shared.input.is_empty();
                        (!shared.waiting).then(|| scatter(mem, list, count, &mut shared.input))
                    };
                    if let Some(moved) = read_now {
                        return Ok(errno(moved.and_then(|n| write_u32(mem, read, n))));
                    }
                    Suspend(false).await;
                }
            })
        },
    )?;
    linker.func_wrap_async(
        P1,
        "poll_oneoff",
        |mut caller: Caller<'_, Ctx>, (subs, events, count, ready_n): (i32, i32, i32, i32)| {
            Box::new(async move {
                if count <= 0 {
                    return Ok(INVAL);
                }
                loop {
                    step(&mut caller)?;
                    let now = now_ns(&caller);
                    let Some(memory) = memory(&mut caller) else { return Ok(FAULT) };
                    let (mem, ctx) = memory.data_and_store_mut(&mut caller);
                    let waiting = ctx.shared.lock_or_recover().input.len() as u64;
                    let polled = poll(mem, subs, count, now, waiting);
                    let (mut ready, soonest) = match polled {
                        Ok(p) => p,
                        Err(e) => return Ok(e),
                    };
                    if ready.is_empty() {
                        if let Some((userdata, wait)) = soonest {
                            sleep(&mut caller, wait)?;
                            ready.push(Event { userdata, error: 0, kind: 0, nbytes: 0 });
                        }
                    }
                    if ready.is_empty() {
                        caller.data().shared.lock_or_recover().waiting = true;
                        Suspend(false).await;
                        continue;
                    }
                    let Some(memory) = self::memory(&mut caller) else { return Ok(FAULT) };
                    let mem = memory.data_mut(&mut caller);
                    let written = ready
                        .iter()
                        .enumerate()
                        .try_for_each(|(i, e)| e.write(mem, events.wrapping_add(i as i32 * 32)));
                    return Ok(errno(written.and_then(|()| write_u32(mem, ready_n, ready.len() as u32))));
                }
            })
        },
    )?;
    define_descriptors(linker)
}

/// What libc asks of a descriptor (its kind, its size; a stream cannot
/// seek), and the granted folders' files: opened, read, sought, closed.
fn define_descriptors(linker: &mut Linker<Ctx>) -> wasmtime::Result<()> {
    let stdio = |fd: i32| (0..=2).contains(&fd);
    linker.func_wrap(P1, "fd_close", move |mut caller: Caller<'_, Ctx>, fd: i32| match stdio(fd) {
        true => SUCCESS,
        false => errno(caller.data_mut().files.close(fd as u32)),
    })?;
    linker.func_wrap(P1, "fd_fdstat_set_flags", move |caller: Caller<'_, Ctx>, fd: i32, _flags: i32| {
        if stdio(fd) || caller.data().files.is_open(fd as u32) {
            SUCCESS
        } else {
            BADF
        }
    })?;
    linker.func_wrap(
        P1,
        "fd_fdstat_set_rights",
        move |caller: Caller<'_, Ctx>, fd: i32, _base: i64, _inheriting: i64| {
            if stdio(fd) || caller.data().files.is_open(fd as u32) {
                SUCCESS
            } else {
                BADF
            }
        },
    )?;
    linker.func_wrap(P1, "fd_renumber", |_from: i32, _to: i32| BADF)?;
    linker.func_wrap(P1, "fd_prestat_get", |mut caller: Caller<'_, Ctx>, fd: i32, out: i32| {
        let Some(len) = caller.data().files.granted_path(fd as u32).map(str::len) else { return BADF };
        let Some(memory) = memory(&mut caller) else { return FAULT };
        // A folder (tag 0) and the length of its name.
        errno(bytes_mut(memory.data_mut(&mut caller), out, 8).map(|b| {
            b.fill(0);
            b[4..8].copy_from_slice(&(len as u32).to_le_bytes());
        }))
    })?;
    linker.func_wrap(P1, "fd_prestat_dir_name", |mut caller: Caller<'_, Ctx>, fd: i32, path: i32, len: i32| {
        let Some(memory) = memory(&mut caller) else { return FAULT };
        let (mem, ctx) = memory.data_and_store_mut(&mut caller);
        let Some(name) = ctx.files.granted_path(fd as u32) else { return BADF };
        if (len as u32 as usize) < name.len() {
            return INVAL;
        }
        errno(bytes_mut(mem, path, name.len()).map(|b| b.copy_from_slice(name.as_bytes())))
    })?;
    linker.func_wrap(
        P1,
        "fd_seek",
        move |mut caller: Caller<'_, Ctx>, fd: i32, offset: i64, whence: i32, out: i32| {
            if stdio(fd) {
                return SPIPE;
            }
            let Some(memory) = memory(&mut caller) else { return FAULT };
            let (mem, ctx) = memory.data_and_store_mut(&mut caller);
            errno(ctx.files.seek(fd as u32, offset, whence).and_then(|at| write_u64(mem, out, at)))
        },
    )?;
    linker.func_wrap(P1, "fd_tell", move |mut caller: Caller<'_, Ctx>, fd: i32, out: i32| {
        if stdio(fd) {
            return SPIPE;
        }
        let Some(memory) = memory(&mut caller) else { return FAULT };
        let (mem, ctx) = memory.data_and_store_mut(&mut caller);
        errno(ctx.files.seek(fd as u32, 0, 1).and_then(|at| write_u64(mem, out, at)))
    })?;
    linker.func_wrap(P1, "fd_fdstat_get", move |mut caller: Caller<'_, Ctx>, fd: i32, out: i32| {
        // A standard stream is a character device; every right on each.
        let kind = match stdio(fd) {
            true => 2,
            false => match caller.data().files.stat(fd as u32) {
                Ok(stat) => stat.kind,
                Err(e) => return e,
            },
        };
        let Some(memory) = memory(&mut caller) else { return FAULT };
        errno(bytes_mut(memory.data_mut(&mut caller), out, 24).map(|b| {
            b.fill(0);
            b[0] = kind;
            b[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
            b[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
        }))
    })?;
    linker.func_wrap(P1, "fd_filestat_get", move |mut caller: Caller<'_, Ctx>, fd: i32, out: i32| {
        let stat = match stdio(fd) {
            true => files::Stat { kind: 2, size: 0 },
            false => match caller.data().files.stat(fd as u32) {
                Ok(stat) => stat,
                Err(e) => return e,
            },
        };
        let Some(memory) = memory(&mut caller) else { return FAULT };
        errno(write_stat(memory.data_mut(&mut caller), out, &stat))
    })?;
    linker.func_wrap(
        P1,
        "path_filestat_get",
        |mut caller: Caller<'_, Ctx>, fd: i32, _flags: i32, path: i32, len: i32, out: i32| {
            let Some(memory) = memory(&mut caller) else { return FAULT };
            let (mem, ctx) = memory.data_and_store_mut(&mut caller);
            let stat = text(mem, path, len).and_then(|p| ctx.files.stat_path(fd as u32, &p));
            errno(stat.and_then(|stat| write_stat(mem, out, &stat)))
        },
    )?;
    linker.func_wrap(
        P1,
        "path_open",
        |mut caller: Caller<'_, Ctx>,
         fd: i32,
         _dirflags: i32,
         path: i32,
         len: i32,
         oflags: i32,
         _base: i64,
         _inheriting: i64,
         fdflags: i32,
         opened: i32| {
            let Some(memory) = memory(&mut caller) else { return FAULT };
            let (mem, ctx) = memory.data_and_store_mut(&mut caller);
            // Creating, truncating or appending writes: nothing is writable.
            let writes = oflags & (1 | 4 | 8) != 0 || fdflags & 1 != 0;
            let folder = oflags & 2 != 0;
            let new = text(mem, path, len).and_then(|p| ctx.files.open(fd as u32, &p, writes, folder));
            errno(new.and_then(|new| write_u32(mem, opened, new)))
        },
    )?;
    Ok(())
}

/// A `poll_oneoff` event.
struct Event {
    userdata: u64,
    error: u16,
    /// 0 clock, 1 read, 2 write.
    kind: u8,
    nbytes: u64,
}

impl Event {
    fn write(&self, mem: &mut [u8], at: i32) -> Result<(), i32> {
        let b = bytes_mut(mem, at, 32)?;
        b.fill(0);
        b[0..8].copy_from_slice(&self.userdata.to_le_bytes());
        b[8..10].copy_from_slice(&self.error.to_le_bytes());
        b[10] = self.kind;
        b[16..24].copy_from_slice(&self.nbytes.to_le_bytes());
        Ok(())
    }
}

/// A clock subscription's userdata and its wait in ns.
type Due = (u64, u64);

/// The events of `count` subscriptions at `subs` ready now (with `input`
/// bytes waiting to be read), and the clock subscription due soonest, if any.
fn poll(mem: &[u8], subs: i32, count: i32, now: u64, input: u64) -> Result<(Vec<Event>, Option<Due>), i32> {
    let (mut ready, mut soonest): (Vec<Event>, Option<Due>) = (Vec::new(), None);
    for i in 0..count {
        let at = subs.wrapping_add(i * 48);
        let sub = bytes(mem, at, 48)?;
        let userdata = u64::from_le_bytes(sub[0..8].try_into().expect("eight bytes"));
        let fd = u32::from_le_bytes(sub[16..20].try_into().expect("four bytes"));
        match sub[8] {
            0 => {
                let timeout = u64::from_le_bytes(sub[24..32].try_into().expect("eight bytes"));
                let absolute = u16::from_le_bytes(sub[40..42].try_into().expect("two bytes")) & 1 != 0;
                let clock_now = if fd == 0 { EPOCH_NS + now } else { now };
                let wait = if absolute { timeout.saturating_sub(clock_now) } else { timeout };
                if soonest.is_none_or(|(_, w)| wait < w) {
                    soonest = Some((userdata, wait));
                }
            }
            kind @ (1 | 2) => {
                let (ok, nbytes) = match (kind, fd) {
                    (1, 0) => (input > 0, input),
                    (2, 1 | 2) => (true, 1 << 16),
                    _ => {
                        ready.push(Event { userdata, error: BADF as u16, kind, nbytes: 0 });
                        continue;
                    }
                };
                if ok {
                    ready.push(Event { userdata, error: 0, kind, nbytes });
                }
            }
            _ => return Err(INVAL),
        }
    }
    Ok((ready, soonest))
}

/// The rest of the engine's world: its arguments, an empty environment,
/// virtual clocks, seeded random bytes, exiting.
fn define_world(linker: &mut Linker<Ctx>) -> wasmtime::Result<()> {
    linker.func_wrap(P1, "args_sizes_get", |mut caller: Caller<'_, Ctx>, count: i32, size: i32| {
        let Some(memory) = memory(&mut caller) else { return FAULT };
        let (mem, ctx) = memory.data_and_store_mut(&mut caller);
        let total: usize = ctx.args.iter().map(|a| a.len() + 1).sum();
        errno(write_u32(mem, count, ctx.args.len() as u32).and_then(|()| write_u32(mem, size, total as u32)))
    })?;
    linker.func_wrap(P1, "args_get", |mut caller: Caller<'_, Ctx>, argv: i32, buf: i32| {
        let Some(memory) = memory(&mut caller) else { return FAULT };
        let (mem, ctx) = memory.data_and_store_mut(&mut caller);
        let mut at = buf;
        let written = ctx.args.iter().enumerate().try_for_each(|(i, arg)| {
            write_u32(mem, argv.wrapping_add(i as i32 * 4), at as u32)?;
            let b = bytes_mut(mem, at, arg.len() + 1)?;
            b[..arg.len()].copy_from_slice(arg.as_bytes());
            b[arg.len()] = 0;
            at = at.wrapping_add(arg.len() as i32 + 1);
            Ok(())
        });
        errno(written)
    })?;
    linker.func_wrap(P1, "environ_sizes_get", |mut caller: Caller<'_, Ctx>, count: i32, size: i32| {
        let Some(memory) = memory(&mut caller) else { return FAULT };
        let mem = memory.data_mut(&mut caller);
        errno(write_u32(mem, count, 0).and_then(|()| write_u32(mem, size, 0)))
    })?;
    linker.func_wrap(P1, "environ_get", |_env: i32, _buf: i32| SUCCESS)?;
    linker.func_wrap(P1, "clock_res_get", |mut caller: Caller<'_, Ctx>, id: i32, out: i32| {
        if !(0..=3).contains(&id) {
            return INVAL;
        }
        let Some(memory) = memory(&mut caller) else { return FAULT };
        errno(write_u64(memory.data_mut(&mut caller), out, 1))
    })?;
    linker.func_wrap(P1, "clock_time_get", |mut caller: Caller<'_, Ctx>, id: i32, _precision: i64, out: i32| {
        let now = now_ns(&caller);
        let value = match id {
            0 => EPOCH_NS + now,
            1..=3 => now,
            _ => return INVAL,
        };
        let Some(memory) = memory(&mut caller) else { return FAULT };
        errno(write_u64(memory.data_mut(&mut caller), out, value))
    })?;
    linker.func_wrap(P1, "random_get", |mut caller: Caller<'_, Ctx>, buf: i32, len: i32| {
        let Some(memory) = memory(&mut caller) else { return FAULT };
        let (mem, ctx) = memory.data_and_store_mut(&mut caller);
        let dst = match bytes_mut(mem, buf, len as u32 as usize) {
            Ok(d) => d,
            Err(e) => return e,
        };
        for chunk in dst.chunks_mut(8) {
            let word = ctx.next_random().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        SUCCESS
    })?;
    linker.func_wrap(P1, "proc_exit", |code: i32| -> wasmtime::Result<()> { Err(Stop::Exit(code).into()) })?;
    linker.func_wrap(P1, "proc_raise", |signal: i32| -> wasmtime::Result<i32> {
        Err(wasmtime::Error::msg(format!("raised signal {signal}")))
    })?;
    linker.func_wrap(P1, "sched_yield", || SUCCESS)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::VirtualClock;

    #[test]
    fn virtual_time_is_the_fuel_spent_at_the_rate() {
        let mut clock = VirtualClock { ips: 2_000_000_000, base_ns: 0, granted: 0 };
        clock.granted(5_000, 1_000);
        assert_eq!(clock.now(1_000), 5_000, "nothing spent yet");
        assert_eq!(clock.now(0), 5_500, "1000 units at 2e9 a second are 500 ns");
        assert_eq!(clock.fuel_of(1_000_000_000), 2_000_000_000);
    }
}
