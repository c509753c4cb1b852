//! Each caller's share of the HTTP server's connections.
//!
//! The connections are a pool one caller could fill, so each caller has a share of it (the
//! [`Pool`]): a connection counts against its peer address when it is accepted, and against
//! the principal (the token's owner) once a request on it authenticates. When the server
//! is full, a connection of the caller holding the most is closed to make room (one that is
//! idle first, then one still sending its body, then a listening stream; never one whose
//! request is being answered), so a newcomer is served rather than refused while one
//! caller holds most of the connections; a caller at its own share is refused, or one of
//! its own idle connections is closed.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio_util::sync::CancellationToken;

use crate::owners::Refusals;

/// What one connection may do, and each caller's share of the connections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    pub(crate) max_connections: usize,
    /// Connections one peer address may hold while no request on them authenticated.
    pub(crate) max_per_address: usize,
    /// Connections one principal may hold (attributed when a request authenticates).
    #[cfg_attr(not(feature = "auth"), allow(dead_code))] // principals: with authentication
    pub(crate) max_per_principal: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) idle_timeout: Duration,
}

/// Refused connections being answered at once, at most: past it, a refused connection is
/// closed without an answer (so a flood cannot make the refusals themselves pile up).
pub(super) const MAX_REFUSING: usize = 64;

/// Who a connection counts against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Holder {
    /// The peer address, until a request on the connection authenticates.
    Address(IpAddr),
    /// The owner of the token a request on the connection authenticated with.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))] // principals: with authentication
    Principal(String),
}

/// Why a connection or a request was refused by the pool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PoolRefusal {
    /// The server has all its connections open and none it may close.
    #[error(
        "this MCP server has its maximum of open connections (max_connections = {max}) and \
         none it could close to make room; close idle connections or try again later"
    )]
    Full { max: usize },
    /// The peer address holds its share of the connections.
    #[error(
        "your address already has {max} connections open to this MCP server, its share \
         (max_connections_per_address = {max}); close idle connections or try again later"
    )]
    Address { max: usize },
    /// The principal holds its share of the connections.
    #[error(
        "your access token already has {max} connections open to this MCP server, its share \
         (max_connections_per_principal = {max}); close idle connections or reuse them, then \
         try again"
    )]
    #[cfg_attr(not(feature = "auth"), allow(dead_code))] // principals: with authentication
    Principal { max: usize },
}

impl PoolRefusal {
    fn status(&self) -> StatusCode {
        match self {
            PoolRefusal::Full { .. } => StatusCode::SERVICE_UNAVAILABLE,
            PoolRefusal::Address { .. } | PoolRefusal::Principal { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
        }
    }

    /// The answer on a connection that is then closed.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))] // principals: with authentication
    pub(crate) fn into_response(self) -> Response {
        let mut response = (self.status(), format!("{self}\n")).into_response();
        let headers = response.headers_mut();
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        response
    }

    /// The whole HTTP answer, written straight to a socket refused at accept.
    pub(super) fn raw_answer(&self) -> Vec<u8> {
        let status = self.status();
        let body = format!("{self}\n");
        format!(
            "HTTP/1.1 {} {}\r\ncontent-type: text/plain; charset=utf-8\r\nretry-after: 5\r\n\
             connection: close\r\ncontent-length: {}\r\n\r\n{body}",
            status.as_u16(),
            status.canonical_reason().unwrap_or(""),
            body.len()
        )
        .into_bytes()
    }
}

/// What a connection is doing, to choose which one to close.
#[derive(Debug, Default)]
pub(crate) struct Busy {
    /// Requests whose answer is not sent yet.
    pub(super) requests: AtomicUsize,
    /// Requests whose body has not all arrived.
    pub(super) bodies: AtomicUsize,
    /// Requests whose answer is a stream that stays open (`subscriptions/listen`, a
    /// session's `GET`): closing it only makes the client open it again.
    pub(super) standing: AtomicUsize,
}

impl Busy {
    /// How readily the connection may be closed: idle first, then a body still arriving,
    /// then only standing streams; `None` while an answer is being made.
    fn rank(&self) -> Option<u8> {
        let requests = self.requests.load(Ordering::SeqCst);
        if requests == 0 {
            Some(0)
        } else if self.bodies.load(Ordering::SeqCst) > 0 {
            Some(1)
        } else if self.standing.load(Ordering::SeqCst) >= requests {
            Some(2)
        } else {
            None
        }
    }
}

/// Counts one thing a connection is doing, until dropped.
pub(crate) struct BusyGuard {
    pub(super) busy: Arc<Busy>,
    pub(super) which: fn(&Busy) -> &AtomicUsize,
}

impl BusyGuard {
    pub(super) fn new(busy: &Arc<Busy>, which: fn(&Busy) -> &AtomicUsize) -> Self {
        which(busy).fetch_add(1, Ordering::SeqCst);
        BusyGuard {
            busy: Arc::clone(busy),
            which,
        }
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        (self.which)(&self.busy).fetch_sub(1, Ordering::SeqCst);
    }
}

pub(super) struct Entry {
    pub(super) holder: Holder,
    pub(super) busy: Arc<Busy>,
    pub(super) close: CancellationToken,
}

#[derive(Default)]
pub(super) struct Table {
    pub(super) next_id: u64,
    pub(super) entries: HashMap<u64, Entry>,
    pub(super) counts: HashMap<Holder, usize>,
}

impl Table {
    fn count(&self, holder: &Holder) -> usize {
        self.counts.get(holder).copied().unwrap_or(0)
    }

    fn add(&mut self, holder: &Holder) {
        *self.counts.entry(holder.clone()).or_insert(0) += 1;
    }

    fn remove_count(&mut self, holder: &Holder) {
        if let Some(count) = self.counts.get_mut(holder) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.counts.remove(holder);
            }
        }
    }

    /// Closes the connection of `holder` (other than `except`) that is readiest to close,
    /// among those ranked at most `worst`. Whether one was closed.
    fn evict_from(&mut self, holder: &Holder, worst: u8, except: Option<u64>) -> bool {
        let victim = self
            .entries
            .iter()
            .filter(|(id, entry)| &entry.holder == holder && Some(**id) != except)
            .filter_map(|(id, entry)| entry.busy.rank().map(|rank| (rank, *id)))
            .filter(|(rank, _)| *rank <= worst)
            .min();
        let Some((_, id)) = victim else {
            return false;
        };
        if let Some(entry) = self.entries.remove(&id) {
            self.remove_count(&entry.holder);
            entry.close.cancel();
        }
        true
    }

    /// Makes room for a newcomer of `holder` in a full pool: closes a connection of the
    /// caller holding the most, as long as it holds more than the newcomer's would (then
    /// the shares get fairer); else an idle one of the newcomer's own.
    fn make_room(&mut self, holder: &Holder) -> bool {
        let own = self.count(holder);
        let mut holders: Vec<(usize, Holder)> = self
            .counts
            .iter()
            .filter(|(other, count)| *other != holder && **count > own + 1)
            .map(|(other, count)| (*count, other.clone()))
            .collect();
        holders.sort_by_key(|(count, _)| std::cmp::Reverse(*count));
        for (_, other) in holders {
            if self.evict_from(&other, 2, None) {
                return true;
            }
        }
        self.evict_from(holder, 0, None)
    }
}

/// The open connections, and whom each counts against.
pub(crate) struct Pool {
    pub(super) limits: ConnectionLimits,
    pub(super) table: Mutex<Table>,
    pub(super) refusals: Arc<Refusals>,
}

impl Pool {
    pub(crate) fn new(limits: ConnectionLimits, refusals: Arc<Refusals>) -> Self {
        Pool {
            limits,
            table: Mutex::default(),
            refusals,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Connections open now.
    #[cfg_attr(not(any(test, feature = "metrics")), allow(dead_code))]
    pub(crate) fn open(&self) -> usize {
        self.lock().entries.len()
    }

    /// Takes a place for a connection from `peer`, closing another to make room when the
    /// server is full; or says why not (counted).
    pub(super) fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Conn, PoolRefusal> {
        let holder = Holder::Address(peer);
        let mut table = self.lock();
        if table.count(&holder) >= self.limits.max_per_address
            && !table.evict_from(&holder, 1, None)
        {
            drop(table);
            Refusals::count(&self.refusals.address_connections);
            return Err(PoolRefusal::Address {
                max: self.limits.max_per_address,
            });
        }
        if table.entries.len() >= self.limits.max_connections.max(1) {
            if !table.make_room(&holder) {
                drop(table);
                Refusals::count(&self.refusals.connections);
                return Err(PoolRefusal::Full {
                    max: self.limits.max_connections,
                });
            }
            Refusals::count(&self.refusals.evicted_connections);
        }
        let id = table.next_id;
        table.next_id += 1;
        let busy = Arc::new(Busy::default());
        let close = CancellationToken::new();
        table.add(&holder);
        table.entries.insert(
            id,
            Entry {
                holder,
                busy: Arc::clone(&busy),
                close: close.clone(),
            },
        );
        Ok(Conn {
            pool: Arc::clone(self),
            id,
            peer,
            busy,
            close,
        })
    }

    /// Counts connection `id` against `owner` from now on (a request on it authenticated
    /// as `owner`), closing an idle connection of `owner`'s when it has its share; or says
    /// why not (counted).
    #[cfg_attr(not(feature = "auth"), allow(dead_code))] // principals: with authentication
    fn attribute(&self, id: u64, owner: &str) -> Result<(), PoolRefusal> {
        let holder = Holder::Principal(owner.to_owned());
        let mut table = self.lock();
        let Some(current) = table.entries.get(&id).map(|entry| entry.holder.clone()) else {
            return Ok(()); // closed meanwhile
        };
        if current == holder {
            return Ok(());
        }
        if table.count(&holder) >= self.limits.max_per_principal
            && !table.evict_from(&holder, 1, Some(id))
        {
            drop(table);
            Refusals::count(&self.refusals.principal_connections);
            return Err(PoolRefusal::Principal {
                max: self.limits.max_per_principal,
            });
        }
        table.remove_count(&current);
        table.add(&holder);
        if let Some(entry) = table.entries.get_mut(&id) {
            entry.holder = holder;
        }
        Ok(())
    }

    fn release(&self, id: u64) {
        let mut table = self.lock();
        if let Some(entry) = table.entries.remove(&id) {
            table.remove_count(&entry.holder);
        }
    }
}

/// One connection's place in the [`Pool`], until dropped; its requests carry a clone of
/// the [`ConnHandle`] in their extensions.
pub(super) struct Conn {
    pub(super) pool: Arc<Pool>,
    pub(super) id: u64,
    pub(super) peer: IpAddr,
    pub(super) busy: Arc<Busy>,
    /// Cancelled when the pool closes the connection to make room.
    pub(super) close: CancellationToken,
}

impl Conn {
    pub(super) fn handle(&self) -> ConnHandle {
        ConnHandle {
            pool: Arc::clone(&self.pool),
            id: self.id,
            peer: self.peer,
            busy: Arc::clone(&self.busy),
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.pool.release(self.id);
    }
}

/// The connection a request came on, in the request's extensions.
#[derive(Clone)]
pub(crate) struct ConnHandle {
    #[cfg_attr(not(feature = "auth"), allow(dead_code))] // principals: with authentication
    pub(super) pool: Arc<Pool>,
    pub(super) id: u64,
    pub(super) peer: IpAddr,
    pub(super) busy: Arc<Busy>,
}

impl std::fmt::Debug for ConnHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnHandle")
            .field("id", &self.id)
            .field("peer", &self.peer)
            .finish_non_exhaustive()
    }
}

/// The address a peer's shares count against: an IPv4 address as it is (an IPv4-mapped
/// IPv6 address as its IPv4), an IPv6 address by its /64, the block one host or one
/// customer usually holds whole: one connection from each of its addresses must not make
/// one caller many.
pub(crate) fn share_address(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(std::net::Ipv6Addr::from(bits))
        }
        v4 => v4,
    }
}

impl ConnHandle {
    /// The address the peer's shares count against ([`share_address`] of its address).
    pub(crate) fn peer(&self) -> IpAddr {
        self.peer
    }

    /// Counts the connection against `owner` (see [`Pool`]).
    ///
    /// # Errors
    ///
    /// When `owner` has its share of the connections, none of them idle.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))] // principals: with authentication
    pub(crate) fn attribute(&self, owner: &str) -> Result<(), PoolRefusal> {
        self.pool.attribute(self.id, owner)
    }

    /// Marks the request's answer as a stream that stays open, until the guard drops.
    pub(crate) fn standing(&self) -> BusyGuard {
        BusyGuard::new(&self.busy, |busy| &busy.standing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_addresses_of_one_ipv6_block_share_one_share() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::7".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(share_address(a), share_address(b));
        assert_ne!(share_address(a), share_address(other));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(
            share_address(mapped),
            "192.0.2.7".parse::<IpAddr>().unwrap()
        );
    }

    fn limits(max: usize, per_address: usize, per_principal: usize) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: max,
            max_per_address: per_address,
            max_per_principal: per_principal,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(10),
        }
    }

    #[test]
    fn the_refusal_says_its_length() {
        let answer = PoolRefusal::Full { max: 8 }.raw_answer();
        let text = std::str::from_utf8(&answer).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(
            head.starts_with("HTTP/1.1 503 Service Unavailable"),
            "{head}"
        );
        assert!(body.contains("max_connections = 8"), "{body}");
    }

    /// One principal holding every connection (busy with standing streams) loses one to a
    /// newcomer; a connection answering a request is never closed.
    #[test]
    fn a_full_pool_closes_a_connection_of_the_caller_holding_the_most() {
        let refusals = Arc::new(Refusals::default());
        let pool = Arc::new(Pool::new(limits(4, 4, 4), Arc::clone(&refusals)));
        let peer: IpAddr = [127, 0, 0, 1].into();
        let held: Vec<Conn> = (0..4).map(|_| pool.admit(peer).unwrap()).collect();
        let mut guards = Vec::new();
        for conn in &held {
            conn.handle().attribute("hog").unwrap();
            guards.push(BusyGuard::new(&conn.busy, |busy| &busy.requests));
            guards.push(conn.handle().standing());
        }
        let newcomer = pool.admit(peer).unwrap();
        assert_eq!(held.iter().filter(|c| c.close.is_cancelled()).count(), 1);
        assert_eq!(pool.open(), 4);
        assert_eq!(refusals.evicted_connections.load(Ordering::Relaxed), 1);
        drop(newcomer);

        // A caller at its share, all its connections busy, gets its own refusal.
        let pool = Arc::new(Pool::new(limits(8, 8, 2), Arc::clone(&refusals)));
        let held: Vec<Conn> = (0..3).map(|_| pool.admit(peer).unwrap()).collect();
        let _busy: Vec<BusyGuard> = held
            .iter()
            .map(|conn| BusyGuard::new(&conn.busy, |busy| &busy.requests))
            .collect();
        held[0].handle().attribute("hog").unwrap();
        held[1].handle().attribute("hog").unwrap();
        let refusal = held[2].handle().attribute("hog").unwrap_err();
        assert_eq!(refusal, PoolRefusal::Principal { max: 2 });
        assert_eq!(refusals.principal_connections.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn connections_answering_requests_are_never_closed() {
        let refusals = Arc::new(Refusals::default());
        let pool = Arc::new(Pool::new(limits(2, 2, 2), refusals));
        let peer: IpAddr = [127, 0, 0, 1].into();
        let held: Vec<Conn> = (0..2).map(|_| pool.admit(peer).unwrap()).collect();
        let _guards: Vec<BusyGuard> = held
            .iter()
            .map(|conn| BusyGuard::new(&conn.busy, |busy| &busy.requests))
            .collect();
        let other: IpAddr = [127, 0, 0, 2].into();
        assert_eq!(pool.admit(other).err(), Some(PoolRefusal::Full { max: 2 }));
        // Per address: the third connection of one address is refused.
        let pool = Arc::new(Pool::new(limits(8, 2, 8), Arc::new(Refusals::default())));
        let _a = pool.admit(peer).unwrap();
        let _b = pool.admit(peer).unwrap();
        let _c1 = BusyGuard::new(&_a.busy, |busy| &busy.requests);
        let _c2 = BusyGuard::new(&_b.busy, |busy| &busy.requests);
        assert_eq!(
            pool.admit(peer).err(),
            Some(PoolRefusal::Address { max: 2 })
        );
        assert!(pool.admit(other).is_ok());
    }
}
