//! What an emulated launch saw: each shared-memory access site's requests and wavefronts, each
//! global access site's requests and 32-byte sectors, and the races between threads.

use std::collections::HashMap;

use bankwise_banks::Access;

use crate::{Site, ThreadId};

/// What a shared-memory access does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessOp {
    /// A load (`LDS`).
    Load,
    /// A store (`STS`).
    Store,
    /// An atomic (`ATOMS`): checked for races with plain accesses, not counted in wavefronts.
    Atomic,
}

impl std::fmt::Display for AccessOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AccessOp::Load => "load",
            AccessOp::Store => "store",
            AccessOp::Atomic => "atomic",
        })
    }
}

/// One shared-memory access site's traffic over a launch, as Nsight Compute counts it per
/// instruction: `requests` (warp-wide executions of the site) and `wavefronts` (passes through
/// the banks, by the `bankwise-banks` model: `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld`
/// or `_st`). A request of a warp is the lanes that executed the site for the same time since
/// the last block barrier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SiteStats {
    /// Where in the kernel.
    pub site: Site,
    /// Load or store.
    pub op: AccessOp,
    /// Bytes per lane of each access (an element wider than 16 bytes, or of a size that is not
    /// a power of two, is counted as the pieces the hardware moves it in).
    pub bytes: u32,
    /// Warp-wide executions.
    pub requests: u64,
    /// Wavefronts they took.
    pub wavefronts: u64,
    /// The request that took the most wavefronts, for drawing (`bankwise banks --kernel`).
    pub worst: Option<Access>,
    /// Its wavefronts.
    pub worst_wavefronts: u32,
}

impl SiteStats {
    /// Wavefronts per request: 1 is conflict-free for accesses of up to 4 bytes per lane (2 and
    /// 4 for 8- and 16-byte ones that the hardware cannot merge); `n` is an n-way conflict.
    pub fn wavefronts_per_request(&self) -> f64 {
        if self.requests == 0 { 0.0 } else { self.wavefronts as f64 / self.requests as f64 }
    }

    /// The site's counts in one line, then the bank map of its costliest request (which lane
    /// hits which bank, in which wavefront), as `bankwise banks` draws an access; ANSI colours
    /// if `color`.
    pub fn draw(&self, color: bool) -> String {
        let mut out = format!(
            "{} {}: {} requests, {} wavefronts ({:.2} per request)\n",
            self.site,
            self.op,
            self.requests,
            self.wavefronts,
            self.wavefronts_per_request()
        );
        let geometry = bankwise_banks::Geometry::MODERN;
        if let Some(analysis) = self.worst.as_ref().and_then(|a| bankwise_banks::analyze(a, &geometry).ok()) {
            let plural = if self.worst_wavefronts == 1 { "" } else { "s" };
            out += &format!("its costliest request, {} wavefront{plural}:\n", self.worst_wavefronts);
            out += &bankwise_banks::render_text(&analysis, &geometry, color);
        }
        out
    }
}

/// Whether a request of `wavefronts` at `access` should replace `worst` (of `worst_wavefronts`)
/// as a site's costliest: it costs more, or as much with lower addresses. The tie-break makes the
/// request kept the same whatever order the emulator's workers run the blocks in, so that a
/// drawing of it does not change from run to run.
fn costlier(wavefronts: u32, access: &Access, worst_wavefronts: u32, worst: Option<&Access>) -> bool {
    match worst {
        None => true,
        Some(worst) => {
            (wavefronts, std::cmp::Reverse(&access.addresses)) > (worst_wavefronts, std::cmp::Reverse(&worst.addresses))
        }
    }
}

/// The bytes of global memory the hardware moves for one request: 32-byte sectors.
pub const SECTOR_BYTES: u64 = 32;

/// One global-memory access site's traffic over a launch, as Nsight Compute counts it per
/// instruction: `requests` (warp-wide executions of the site, grouped as shared ones are) and
/// `sectors` (the distinct 32-byte sectors each request's lanes touch:
/// `l1tex__t_sectors_pipe_lsu_mem_global_op_ld` or `_st`). A coalesced request touches as few
/// sectors as its bytes fill from where they start (`ideal_sectors`): 4 for 32 lanes reading
/// consecutive 4-byte elements from a sector's start, 5 from elsewhere; a warp whose lanes are
/// 128 bytes apart touches 32.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalSiteStats {
    /// Where in the kernel.
    pub site: Site,
    /// Load, store or atomic.
    pub op: AccessOp,
    /// Bytes per lane of each access.
    pub bytes: u32,
    /// Warp-wide executions.
    pub requests: u64,
    /// The 32-byte sectors they touched, summed over requests.
    pub sectors: u64,
    /// The fewest sectors the same requests could touch: each request's distinct elements
    /// packed end to end from where its lowest one lies in its sector
    /// (`⌈(lowest mod 32 + elements · bytes) / 32⌉`).
    pub ideal_sectors: u64,
    /// The lanes' addresses of the request that touched the most sectors, for drawing.
    pub worst: [Option<u64>; 32],
    /// Its sectors.
    pub worst_sectors: u32,
}

impl GlobalSiteStats {
    /// Sectors per request: 4 for a warp's coalesced 4-byte accesses, 32 for a scattered one.
    pub fn sectors_per_request(&self) -> f64 {
        if self.requests == 0 { 0.0 } else { self.sectors as f64 / self.requests as f64 }
    }

    /// Whether every request touched no more sectors than its bytes fill.
    pub fn is_coalesced(&self) -> bool {
        self.sectors == self.ideal_sectors
    }

    /// Adds `other`'s requests (the same site in another block or launch) to these.
    pub fn absorb(&mut self, other: &GlobalSiteStats) {
        self.requests += other.requests;
        self.sectors += other.sectors;
        self.ideal_sectors += other.ideal_sectors;
        if other.worst_sectors > self.worst_sectors {
            (self.worst, self.worst_sectors) = (other.worst, other.worst_sectors);
        }
    }

    /// The site's counts in one line, then its costliest request: each sector it touched (by
    /// offset from the lowest, in bytes) and the lanes that touched it.
    pub fn draw(&self) -> String {
        let mut out = format!(
            "{} global {}: {} requests, {} sectors of 32 bytes ({:.2} per request; {:.2} if coalesced)\n",
            self.site,
            self.op,
            self.requests,
            self.sectors,
            self.sectors_per_request(),
            if self.requests == 0 { 0.0 } else { self.ideal_sectors as f64 / self.requests as f64 },
        );
        let Some(base) = self.worst.iter().flatten().min().map(|a| a / SECTOR_BYTES * SECTOR_BYTES) else {
            return out;
        };
        out += &format!("its costliest request, {} sectors (byte offset of each sector: lanes):\n", self.worst_sectors);
        for (sector, lanes) in sector_lanes(&self.worst, self.bytes) {
            let lanes: Vec<String> = lanes.iter().map(u32::to_string).collect();
            out += &format!("  +{:<8} {}\n", sector * SECTOR_BYTES - base, lanes.join(" "));
        }
        out
    }
}

/// The bank map of the costliest shared request of a check or a program, as the short drawings
/// end: a line naming it (`op` at `site`, its wavefronts), its map, then the legend, once.
/// `None` where the bank model refuses the access.
pub fn costliest_map(
    site: &dyn std::fmt::Display,
    op: &dyn std::fmt::Display,
    access: &Access,
    wavefronts: u32,
    color: bool,
) -> Option<String> {
    let geometry = bankwise_banks::Geometry::MODERN;
    let analysis = bankwise_banks::analyze(access, &geometry).ok()?;
    let plural = if wavefronts == 1 { "" } else { "s" };
    Some(format!(
        "\nthe costliest shared request: the {op} at {site}, {wavefronts} wavefront{plural}:\n{}{}",
        bankwise_banks::render_map_text(&analysis, &geometry, color),
        bankwise_banks::legend_text(color)
    ))
}

impl GlobalSiteStats {
    /// Its costliest request in one phrase: how many sectors, how many lanes each, and how far
    /// apart where each lane is alone (`32 sectors, 1 lane each, 256 bytes apart`).
    pub fn costliest_summary(&self) -> String {
        let sectors = sector_lanes(&self.worst, self.bytes);
        let counts: Vec<usize> = sectors.iter().map(|(_, lanes)| lanes.len()).collect();
        let (fewest, most) = (counts.iter().min().copied().unwrap_or(0), counts.iter().max().copied().unwrap_or(0));
        let lanes = |n: usize| format!("{n} lane{}", if n == 1 { "" } else { "s" });
        let each =
            if fewest == most { format!("{} each", lanes(most)) } else { format!("{fewest} to {most} lanes each") };
        let gaps: Vec<u64> = sectors.windows(2).map(|w| (w[1].0 - w[0].0) * SECTOR_BYTES).collect();
        let apart = match gaps.split_first() {
            Some((&gap, rest)) if gap > SECTOR_BYTES && rest.iter().all(|&g| g == gap) => {
                format!(", {gap} bytes apart")
            }
            _ => String::new(),
        };
        let plural = if sectors.len() == 1 { "" } else { "s" };
        format!("{} sector{plural}, {each}{apart}", sectors.len())
    }
}

/// Each 32-byte sector that a request's lanes touch (their accesses of `bytes` bytes at
/// `addresses`), in address order, with the lanes that touch it.
pub fn sector_lanes(addresses: &[Option<u64>; 32], bytes: u32) -> Vec<(u64, Vec<u32>)> {
    let mut sectors: std::collections::BTreeMap<u64, Vec<u32>> = std::collections::BTreeMap::new();
    for (lane, a) in addresses.iter().enumerate() {
        if let Some(a) = *a {
            for sector in a / SECTOR_BYTES..=(a + u64::from(bytes.max(1)) - 1) / SECTOR_BYTES {
                sectors.entry(sector).or_default().push(lane as u32);
            }
        }
    }
    sectors.into_iter().collect()
}

/// Which two accesses raced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RaceKind {
    /// Two writes.
    WriteWrite,
    /// A read, then a write by another thread.
    ReadWrite,
    /// A write, then a read by another thread.
    WriteRead,
}

impl std::fmt::Display for RaceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RaceKind::WriteWrite => "write-after-write",
            RaceKind::ReadWrite => "write-after-read",
            RaceKind::WriteRead => "read-after-write",
        })
    }
}

/// Two threads touched the same shared byte between the same pair of block barriers, at least
/// one writing, not both atomically, with no `sync_warp` of both between them (what
/// compute-sanitizer's racecheck calls a hazard). Reported once per pair of sites, with the
/// first example found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    /// The earlier access's site.
    pub first: Site,
    /// The later access's site.
    pub second: Site,
    /// What the two accesses were.
    pub kind: RaceKind,
    /// Who made the earlier access.
    pub first_thread: ThreadId,
    /// Who made the later one.
    pub second_thread: ThreadId,
    /// The byte offset in shared memory where they met.
    pub address: u32,
    /// How many times a pair of accesses at these sites raced.
    pub occurrences: u64,
}

impl std::fmt::Display for Race {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} race on shared byte {:#x}: {} at {}, then {} at {} ({} times)",
            self.kind, self.address, self.first_thread, self.first, self.second_thread, self.second, self.occurrences
        )
    }
}

type SiteKey = (Site, AccessOp, u32);
type RaceKey = (Site, Site, RaceKind);

/// What one emulated launch saw.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Every shared-memory load and store site, in source order.
    pub sites: Vec<SiteStats>,
    /// Every global load, store and atomic site, in source order.
    pub global: Vec<GlobalSiteStats>,
    /// Every racing pair of sites, in source order.
    pub races: Vec<Race>,
    /// Blocks run.
    pub blocks: u64,
    /// Threads run.
    pub threads: u64,
    site_map: HashMap<SiteKey, SiteStats>,
    global_map: HashMap<SiteKey, GlobalSiteStats>,
    race_map: HashMap<RaceKey, Race>,
}

impl Report {
    /// Every shared load and store site [drawn](SiteStats::draw), every global site
    /// [drawn](GlobalSiteStats::draw), then every race, for a kernel of your own:
    /// `print!("{}", launch.report.draw(false))` after an emulated launch.
    pub fn draw(&self, color: bool) -> String {
        let mut out = String::new();
        for s in self.sites.iter().filter(|s| s.op != AccessOp::Atomic) {
            out += &s.draw(color);
            out += "\n";
        }
        for s in &self.global {
            out += &s.draw();
            out += "\n";
        }
        for r in &self.races {
            out += &format!("RACE: {r}\n");
        }
        out
    }

    /// The reports of several launches (a check's, a program's) in short, each site summed over
    /// them: a line for each shared load and store site (its requests, and wavefronts per
    /// request: the costliest request's beside the average, which partial warps pull down), a
    /// line for each global site (sectors per request beside as few as its bytes fill), the
    /// races, then the bank map of the costliest shared request of all, and the legend once.
    /// [`Report::draw`] draws every site of one launch in full.
    pub fn draw_compact(reports: &[Report], color: bool) -> String {
        let mut shared: Vec<SiteStats> = Vec::new();
        for s in reports.iter().flat_map(|r| &r.sites).filter(|s| s.op != AccessOp::Atomic) {
            match shared.iter_mut().find(|m| (m.site, m.op, m.bytes) == (s.site, s.op, s.bytes)) {
                None => shared.push(s.clone()),
                Some(m) => {
                    (m.requests, m.wavefronts) = (m.requests + s.requests, m.wavefronts + s.wavefronts);
                    if let Some(worst) = &s.worst
                        && costlier(s.worst_wavefronts, worst, m.worst_wavefronts, m.worst.as_ref())
                    {
                        (m.worst, m.worst_wavefronts) = (s.worst.clone(), s.worst_wavefronts);
                    }
                }
            }
        }
        shared.sort_by_key(|s| (s.site, s.op, s.bytes));
        let mut global: Vec<GlobalSiteStats> = Vec::new();
        for s in reports.iter().flat_map(|r| &r.global) {
            match global.iter_mut().find(|m| (m.site, m.op, m.bytes) == (s.site, s.op, s.bytes)) {
                None => global.push(s.clone()),
                Some(m) => m.absorb(s),
            }
        }
        global.sort_by_key(|s| (s.site, s.op, s.bytes));
        let mut races: Vec<Race> = Vec::new();
        for r in reports.iter().flat_map(|r| &r.races) {
            match races.iter_mut().find(|m| (m.first, m.second, m.kind) == (r.first, r.second, r.kind)) {
                None => races.push(r.clone()),
                Some(m) => m.occurrences += r.occurrences,
            }
        }

        let (blocks, threads) = reports.iter().fold((0, 0), |(b, t), r| (b + r.blocks, t + r.threads));
        let plural = |n: u64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut out = format!(
            "{}: {}, {}\n",
            plural(reports.len() as u64, "launch").replace("launchs", "launches"),
            plural(blocks, "block"),
            plural(threads, "thread")
        );
        let label = |site: &Site, op: AccessOp| format!("{site} {op}");
        let width = (shared.iter().map(|s| label(&s.site, s.op)))
            .chain(global.iter().map(|s| label(&s.site, s.op)))
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0);
        out += "shared memory, wavefronts per request (1 is conflict-free for up to 4 bytes a lane):\n";
        if shared.is_empty() {
            out += "  none\n";
        }
        for s in &shared {
            let cost = if u64::from(s.worst_wavefronts) * s.requests == s.wavefronts {
                format!("{} per request", s.worst_wavefronts)
            } else {
                format!("{} at worst, {:.2} on average", s.worst_wavefronts, s.wavefronts_per_request())
            };
            let requests = plural(s.requests, "request");
            out += &format!("  {:<width$}  {}-byte, {requests}: {cost}\n", label(&s.site, s.op), s.bytes);
        }
        out += "global memory, 32-byte sectors per request (coalesced: as few as the request's bytes fill):\n";
        if global.is_empty() {
            out += "  none\n";
        }
        for s in &global {
            let ideal = s.ideal_sectors as f64 / s.requests.max(1) as f64;
            let verdict = if s.is_coalesced() { "coalesced" } else { "uncoalesced" };
            let requests = plural(s.requests, "request");
            out += &format!(
                "  {:<width$}  {}-byte, {requests}: {:.2}, {ideal:.2} if coalesced ({verdict}; {} at worst)\n",
                label(&s.site, s.op),
                s.bytes,
                s.sectors_per_request(),
                s.worst_sectors
            );
        }
        if races.is_empty() {
            out += "races: none\n";
        }
        for r in &races {
            out += &format!("RACE: {r}\n");
        }
        // The first site's costliest request where several cost the most.
        let costliest = shared.iter().rev().max_by_key(|s| s.worst_wavefronts);
        if let Some(map) =
            costliest.and_then(|s| costliest_map(&s.site, &s.op, s.worst.as_ref()?, s.worst_wavefronts, color))
        {
            out += &map;
        }
        out
    }

    /// Adds one request at a site.
    pub(crate) fn add_request(&mut self, site: Site, op: AccessOp, access: Access, wavefronts: u32) {
        let bytes = access.width.bytes();
        let s = self.site_map.entry((site, op, bytes)).or_insert_with(|| SiteStats {
            site,
            op,
            bytes,
            requests: 0,
            wavefronts: 0,
            worst: None,
            worst_wavefronts: 0,
        });
        s.requests += 1;
        s.wavefronts += u64::from(wavefronts);
        if costlier(wavefronts, &access, s.worst_wavefronts, s.worst.as_ref()) {
            s.worst = Some(access);
            s.worst_wavefronts = wavefronts;
        }
    }

    /// Adds one global request at a site: its lanes' addresses.
    pub(crate) fn add_global_request(&mut self, site: Site, op: AccessOp, bytes: u32, addresses: [Option<u64>; 32]) {
        // The distinct sectors the lanes' bytes fall in (lists of lanes only for drawing).
        let mut sectors: Vec<u64> = (addresses.iter().flatten())
            .flat_map(|&a| a / SECTOR_BYTES..=(a + u64::from(bytes.max(1)) - 1) / SECTOR_BYTES)
            .collect();
        sectors.sort_unstable();
        sectors.dedup();
        let touched = sectors.len() as u32;
        // The distinct elements the lanes touch, packed end to end from the lowest one's
        // place in its sector.
        let mut starts: Vec<u64> = addresses.iter().flatten().copied().collect();
        starts.sort_unstable();
        starts.dedup();
        let offset = starts.first().map_or(0, |a| a % SECTOR_BYTES);
        let ideal = (offset + starts.len() as u64 * u64::from(bytes)).div_ceil(SECTOR_BYTES).max(1);
        let s = self.global_map.entry((site, op, bytes)).or_insert_with(|| GlobalSiteStats {
            site,
            op,
            bytes,
            requests: 0,
            sectors: 0,
            ideal_sectors: 0,
            worst: [None; 32],
            worst_sectors: 0,
        });
        s.requests += 1;
        s.sectors += u64::from(touched);
        s.ideal_sectors += ideal;
        if touched > s.worst_sectors {
            s.worst = addresses;
            s.worst_sectors = touched;
        }
    }

    /// Adds one racing pair of accesses.
    pub(crate) fn add_race(&mut self, race: Race) {
        self.race_map.entry((race.first, race.second, race.kind)).and_modify(|r| r.occurrences += 1).or_insert(race);
    }

    /// Adds another worker's part.
    pub(crate) fn merge(&mut self, other: Report) {
        for (key, s) in other.site_map {
            match self.site_map.get_mut(&key) {
                None => {
                    self.site_map.insert(key, s);
                }
                Some(mine) => {
                    mine.requests += s.requests;
                    mine.wavefronts += s.wavefronts;
                    if let Some(worst) = &s.worst
                        && costlier(s.worst_wavefronts, worst, mine.worst_wavefronts, mine.worst.as_ref())
                    {
                        mine.worst = s.worst;
                        mine.worst_wavefronts = s.worst_wavefronts;
                    }
                }
            }
        }
        for (key, s) in other.global_map {
            match self.global_map.get_mut(&key) {
                None => {
                    self.global_map.insert(key, s);
                }
                Some(mine) => mine.absorb(&s),
            }
        }
        for (key, r) in other.race_map {
            match self.race_map.get_mut(&key) {
                None => {
                    self.race_map.insert(key, r);
                }
                Some(mine) => {
                    mine.occurrences += r.occurrences;
                    if (r.first_thread, r.second_thread) < (mine.first_thread, mine.second_thread) {
                        let occurrences = mine.occurrences;
                        *mine = Race { occurrences, ..r };
                    }
                }
            }
        }
    }

    /// Sorts the maps into the public lists.
    pub(crate) fn finish(&mut self, blocks: u64, threads: u64) {
        self.blocks = blocks;
        self.threads = threads;
        let mut sites: Vec<_> = self.site_map.values().cloned().collect();
        sites.sort_by_key(|s| (s.site, s.op, s.bytes));
        let mut global: Vec<_> = self.global_map.values().cloned().collect();
        global.sort_by_key(|s| (s.site, s.op, s.bytes));
        self.global = global;
        let mut races: Vec<_> = self.race_map.values().cloned().collect();
        races.sort_by_key(|r| (r.first, r.second, r.kind));
        self.sites = sites;
        self.races = races;
    }

    /// The global sites of `op` on source line `line` of a file whose path ends with `file`.
    pub fn global_sites_at(&self, file: &str, line: u32, op: AccessOp) -> Vec<&GlobalSiteStats> {
        self.global.iter().filter(|s| s.site.file.ends_with(file) && s.site.line == line && s.op == op).collect()
    }

    /// The sites of `op` on source line `line` of a file whose path ends with `file`.
    pub fn sites_at(&self, file: &str, line: u32, op: AccessOp) -> Vec<&SiteStats> {
        self.sites.iter().filter(|s| s.site.file.ends_with(file) && s.site.line == line && s.op == op).collect()
    }
}

#[cfg(test)]
mod tests {
    use bankwise_banks::Width;

    use super::*;

    fn site(line: u32) -> Site {
        Site { file: "k.rs", line, column: 5 }
    }

    /// A launch: a store at line 1 (conflict-free), a load at line 2 whose one full-warp request
    /// (stride `stride`) is followed by a one-lane one, a global load at line 3 (coalesced).
    fn launch(stride: u64) -> Report {
        let mut r = Report::default();
        r.add_request(site(1), AccessOp::Store, Access::strided(Width::B4, 0, 1), 1);
        let full = Access::strided(Width::B4, 0, stride);
        let wavefronts = bankwise_banks::analyze(&full, &bankwise_banks::Geometry::MODERN).unwrap().wavefronts();
        r.add_request(site(2), AccessOp::Load, full, wavefronts);
        r.add_request(site(2), AccessOp::Load, Access::strided(Width::B4, 0, stride).with_mask(1), 1);
        r.add_global_request(site(3), AccessOp::Load, 4, std::array::from_fn(|i| Some(4096 + 4 * i as u64)));
        r.finish(1, 32);
        r
    }

    #[test]
    fn a_global_sites_costliest_request_in_one_phrase() {
        let mut r = Report::default();
        let site = Site { file: "k.rs", line: 1, column: 1 };
        let rows: [Option<u64>; 32] = std::array::from_fn(|l| Some(4096 + 4 * l as u64));
        let column: [Option<u64>; 32] = std::array::from_fn(|l| Some(4096 + 256 * l as u64));
        r.add_global_request(site, AccessOp::Load, 4, rows);
        r.add_global_request(Site { line: 2, ..site }, AccessOp::Store, 4, column);
        r.finish(1, 32);
        assert_eq!(r.global[0].costliest_summary(), "4 sectors, 8 lanes each");
        assert_eq!(r.global[1].costliest_summary(), "32 sectors, 1 lane each, 256 bytes apart");
    }

    #[test]
    fn the_compact_drawing_sums_sites_over_launches_and_draws_one_map_and_one_legend() {
        let reports = [launch(2), launch(16)];
        let text = Report::draw_compact(&reports, false);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "2 launches: 2 blocks, 64 threads");
        assert_eq!(lines[2], "  k.rs:1:5 store  4-byte, 2 requests: 1 per request");
        // 2 + 1 + 16 + 1 wavefronts over 4 requests.
        assert_eq!(lines[3], "  k.rs:2:5 load   4-byte, 4 requests: 16 at worst, 5.00 on average");
        assert_eq!(lines[5], "  k.rs:3:5 load   4-byte, 2 requests: 4.00, 4.00 if coalesced (coalesced; 4 at worst)");
        assert_eq!(lines[6], "races: none");
        assert_eq!(lines[8], "the costliest shared request: the load at k.rs:2:5, 16 wavefronts:");
        assert_eq!(text.matches("legend:").count(), 1);
        assert_eq!(text.matches("│").count(), 1 + 16, "one map: its header and 16 wavefronts");
        assert!(text.contains("16-way conflict"));
        // The full drawing of one launch is as it was: every site, each map with its legend.
        assert_eq!(reports[1].draw(false).matches("legend:").count(), 2);
    }
}
