//! Units: simulated time in integer picoseconds, rates in bits per second,
//! sizes in bytes, and the parsers for the way people write them
//! (`"80ms"`, `"500Mbps"`, `"64KB"`, `"250pkts"`, `"0.25bdp"`).
//!
//! Time is an integer so that serialization at 100 Gbit/s (80 ps per byte)
//! stays exact and two runs never disagree by a rounding of the clock.

use std::fmt;

/// Simulated time, in picoseconds since the start of the run.
/// `u64` picoseconds cover about 213 days.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

pub const PS_PER_SEC: u64 = 1_000_000_000_000;

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime(round_u64(s * PS_PER_SEC as f64))
    }
    pub const fn from_millis(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000_000)
    }
    pub const fn from_micros(us: u64) -> SimTime {
        SimTime(us * 1_000_000)
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    pub fn ps(self) -> u64 {
        self.0
    }
    pub fn saturating_sub(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(o.0))
    }
}

impl std::ops::Add for SimTime {
    type Output = SimTime;
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0 + o.0)
    }
}
impl std::ops::Sub for SimTime {
    type Output = SimTime;
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0 - o.0)
    }
}
impl std::ops::AddAssign for SimTime {
    fn add_assign(&mut self, o: SimTime) {
        self.0 += o.0
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.secs_f64())
    }
}

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

impl Rate {
    pub fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` at this rate, rounded up to the next picosecond
    /// so that a link never sends faster than its rate.
    pub fn tx_time(self, bytes: u32) -> SimTime {
        let num = bytes as u128 * 8 * PS_PER_SEC as u128;
        SimTime(num.div_ceil(self.0 as u128) as u64)
    }
    /// Bytes this rate carries in `t`.
    pub fn bytes_in(self, t: SimTime) -> f64 {
        self.0 as f64 / 8.0 * t.secs_f64()
    }
}

/// `x.round() as u64`, without the library call `round` is on x86-64's baseline (this is on
/// every ACK's path): for `x` in `[0, 2^53)` the truncation and the fraction are exact; at or
/// above 2^53 `x` is whole; below 0, NaN and past `u64::MAX` saturate as the cast does.
#[inline]
pub fn round_u64(x: f64) -> u64 {
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// Why a unit string was not understood: the accepted forms, for the error message.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitError {
    pub accepted: &'static str,
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "1e" followed by a unit letter would be mis-split; back off over a trailing 'e'/'E'.
    let (mut num, mut unit) = s.split_at(end);
    while num.ends_with(['e', 'E']) {
        let k = num.len() - 1;
        num = &s[..k];
        unit = &s[k..];
    }
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    Some((v, unit.trim()))
}

pub const TIME_FORMS: &str = "a number with a unit: ps, ns, us, ms, s (e.g. \"80ms\", \"1.5s\")";
pub const RATE_FORMS: &str = "a number with a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. \"500Mbps\", \"10Gbps\")";
pub const SIZE_FORMS: &str =
    "a number with a unit: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (e.g. \"1500B\", \"64KB\")";

/// Parses a duration such as `"80ms"`; must be >= 0.
pub fn parse_time(s: &str) -> Result<SimTime, UnitError> {
    let err = UnitError { accepted: TIME_FORMS };
    let (v, unit) = split_number(s).ok_or(err.clone())?;
    let scale = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" | "sec" => 1e12,
        _ => return Err(err),
    };
    if v < 0.0 {
        return Err(UnitError { accepted: "a duration >= 0, e.g. \"80ms\"" });
    }
    let ps = (v * scale).round();
    if ps >= u64::MAX as f64 {
        return Err(UnitError { accepted: "a duration below 213 days" });
    }
    Ok(SimTime(ps as u64))
}

/// Parses a rate such as `"500Mbps"`; must be > 0.
pub fn parse_rate(s: &str) -> Result<Rate, UnitError> {
    let err = UnitError { accepted: RATE_FORMS };
    let (v, unit) = split_number(s).ok_or(err.clone())?;
    let scale = match unit {
        "bps" => 1.0,
        "Kbps" | "kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "Tbps" => 1e12,
        _ => return Err(err),
    };
    // Checked before rounding: "0.5bps" would round up to a rate nobody wrote.
    if !(1.0..1e18).contains(&(v * scale)) {
        return Err(UnitError { accepted: "a rate from 1bps to 1000Pbps, e.g. \"100Mbps\"" });
    }
    Ok(Rate((v * scale).round() as u64))
}

/// Parses a size in bytes such as `"1500B"` or `"64KB"`.
pub fn parse_bytes(s: &str) -> Result<u64, UnitError> {
    let err = UnitError { accepted: SIZE_FORMS };
    let (v, unit) = split_number(s).ok_or(err.clone())?;
    let scale = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(err),
    };
    if v < 0.0 {
        return Err(UnitError { accepted: "a size >= 0" });
    }
    // Beyond this an f64 no longer holds every byte count, and a cast would saturate:
    // "1e30B" would silently mean 18 EB.
    if v * scale > MAX_BYTES as f64 {
        return Err(UnitError { accepted: "a size up to 1PB (1e15B)" });
    }
    Ok((v * scale).round() as u64)
}

/// The largest size in bytes a scenario may give.
pub const MAX_BYTES: u64 = 1_000_000_000_000_000;
/// The largest buffer in packets: "1e308pkts" would otherwise saturate and silently mean unlimited.
pub const MAX_BUFFER_PKTS: u64 = 1_000_000_000_000;

/// A queue capacity as the user wrote it, resolved once the BDP is known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSize {
    Packets(u64),
    Bytes(u64),
    /// A multiple of the bandwidth-delay product.
    Bdp(f64),
    Unlimited,
}

pub const BUFFER_FORMS: &str =
    "a packet count (\"250pkts\"), a size (\"64KB\", \"375000B\"), a multiple of the BDP (\"0.25bdp\"), or \"unlimited\"";

pub fn parse_buffer(s: &str) -> Result<BufferSize, UnitError> {
    let err = UnitError { accepted: BUFFER_FORMS };
    let t = s.trim();
    if t == "unlimited" || t == "inf" {
        return Ok(BufferSize::Unlimited);
    }
    let (v, unit) = split_number(t).ok_or(err.clone())?;
    if v <= 0.0 {
        return Err(UnitError { accepted: "a buffer > 0 (a zero buffer drops every packet)" });
    }
    match unit {
        "pkts" | "pkt" | "packets" | "p" => {
            if v.fract() != 0.0 {
                return Err(UnitError { accepted: "a whole number of packets" });
            }
            if v > MAX_BUFFER_PKTS as f64 {
                return Err(UnitError { accepted: "a buffer up to 1e12pkts, or \"unlimited\"" });
            }
            Ok(BufferSize::Packets(v as u64))
        }
        "bdp" | "BDP" if v > 1e6 => Err(UnitError { accepted: "a buffer up to 1e6bdp, or \"unlimited\"" }),
        "bdp" | "BDP" => Ok(BufferSize::Bdp(v)),
        _ => parse_bytes(t).map(BufferSize::Bytes).map_err(|_| err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_parse_to_exact_picoseconds() {
        assert_eq!(parse_time("80ms").unwrap(), SimTime(80_000_000_000));
        assert_eq!(parse_time("1.5s").unwrap(), SimTime(1_500_000_000_000));
        assert_eq!(parse_time("3us").unwrap(), SimTime(3_000_000));
        assert!(parse_time("80").is_err());
        assert!(parse_time("-1ms").is_err());
        assert!(parse_time("80 mins").is_err());
    }

    #[test]
    fn rates_parse_and_reject_typos() {
        assert_eq!(parse_rate("500Mbps").unwrap(), Rate(500_000_000));
        assert_eq!(parse_rate("10Gbps").unwrap(), Rate(10_000_000_000));
        assert!(parse_rate("100Mbs").is_err());
        assert!(parse_rate("0Mbps").is_err());
        // Not rounded up to 1bps.
        assert!(parse_rate("0.5bps").is_err());
        assert_eq!(parse_rate("1.5bps").unwrap(), Rate(2));
    }

    #[test]
    fn sizes_and_buffers_that_would_overflow_are_refused() {
        assert!(parse_bytes("1e30B").is_err());
        assert_eq!(parse_bytes("1e15B").unwrap(), MAX_BYTES);
        assert!(parse_buffer("1e308pkts").is_err());
        assert!(parse_buffer("1e13pkts").is_err());
        assert_eq!(parse_buffer("1e12pkts").unwrap(), BufferSize::Packets(MAX_BUFFER_PKTS));
        assert!(parse_buffer("1e300bdp").is_err());
    }

    #[test]
    fn serialization_time_is_exact_at_100gbps() {
        // 1500 B at 100 Gbit/s: 12000 bits / 1e11 = 120 ns exactly.
        assert_eq!(Rate(100_000_000_000).tx_time(1500), SimTime(120_000));
        // 1000 B at 100 Mbit/s = 80 us.
        assert_eq!(Rate(100_000_000).tx_time(1000), SimTime::from_micros(80));
        // Rounded up when not exact: 1 byte at 3 bit/s = 2.666.. s.
        assert_eq!(Rate(3).tx_time(1), SimTime(2_666_666_666_667));
    }

    #[test]
    fn buffers_parse_in_all_forms() {
        assert_eq!(parse_buffer("250pkts").unwrap(), BufferSize::Packets(250));
        assert_eq!(parse_buffer("64KB").unwrap(), BufferSize::Bytes(64_000));
        assert_eq!(parse_buffer("0.25bdp").unwrap(), BufferSize::Bdp(0.25));
        assert_eq!(parse_buffer("unlimited").unwrap(), BufferSize::Unlimited);
        assert!(parse_buffer("0pkts").is_err());
        assert!(parse_buffer("2.5pkts").is_err());
        assert!(parse_buffer("many").is_err());
    }

    #[test]
    fn sizes_accept_exponents_and_binary_prefixes() {
        assert_eq!(parse_bytes("1e6B").unwrap(), 1_000_000);
        assert_eq!(parse_bytes("2KiB").unwrap(), 2048);
    }

    #[test]
    fn round_u64_is_round_then_cast_for_every_kind_of_value() {
        let special = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -0.7,
            0.49999999999999994,
            4503599627370495.5,
            9007199254740993.0,
            1.8446744073709552e19,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            123456.5,
        ];
        // And a spread of bit patterns (a fixed linear congruential walk over all doubles).
        let mut bits: u64 = 0x9E37_79B9_7F4A_7C15;
        let walk = (0..200_000).map(|_| {
            bits = bits.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            f64::from_bits(bits)
        });
        for x in special.into_iter().chain(walk) {
            assert_eq!(round_u64(x), x.round() as u64, "{x:e}");
        }
    }
}
