//! `bankwise bench permute`: the permutation suite, each case beside the driver's copy of the
//! same bytes in interleaved runs, f32 and bf16.
//!
//! The suite is 60 cases of ranks 2 to 6 and 2^26 elements (within a few percent for the
//! random ones; 256 MiB of f32, 128 MiB of bf16): the nine the tensors issue measured PyTorch
//! on, 21 chosen for what models do (attention heads, NCHW ↔ NHWC, patch and pixel shuffles,
//! reversals, odd sizes), and 30 drawn by a generator seeded with [`SEED`] (ranks, sizes and
//! permutations uniformly at random, sizes mixing powers of two and odd numbers).
//! `--permute-cases FILE` writes them, one per line (`dims perm`), for the PyTorch script
//! `benches/peers/permute_torch.py`, which times `out.copy_(x.permute(p))` beside its own copy.

use anyhow::Result;
use bankwise::half::bf16;
use bankwise::timing::{VersusCopy, versus_copy};
use bankwise::{Element, PermutePlan};
use rand::{Rng, SeedableRng, rngs::SmallRng};

use super::{Bench, Row, random, short_type_name};

/// The seed of the suite's random half.
pub const SEED: u64 = 0x7e45_0032;

/// Elements of every case (the random ones round their last axis to come near).
const ELEMENTS: usize = 1 << 26;

/// One case of the suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// Sizes of the input's axes.
    pub dims: Vec<usize>,
    /// The output's axis `j` is the input's `perm[j]`.
    pub perm: Vec<usize>,
    /// Where it comes from: `issue`, `picked` or `random`.
    pub origin: &'static str,
}

impl Case {
    /// `512x512x256 by 2,1,0`.
    pub fn label(&self) -> String {
        let join = |v: &[usize], sep: &str| v.iter().map(usize::to_string).collect::<Vec<_>>().join(sep);
        format!("{} by {}", join(&self.dims, "x"), join(&self.perm, ","))
    }
}

/// The nine cases and the picked ones, then the random ones.
pub fn suite() -> Vec<Case> {
    let fixed = |dims: &[usize], perm: &[usize], origin| Case { dims: dims.to_vec(), perm: perm.to_vec(), origin };
    let mut cases = vec![
        fixed(&[512, 512, 256], &[2, 1, 0], "issue"),
        fixed(&[512, 512, 256], &[0, 2, 1], "issue"),
        fixed(&[64, 64, 128, 128], &[3, 2, 1, 0], "issue"),
        fixed(&[64, 64, 128, 128], &[0, 3, 1, 2], "issue"),
        fixed(&[16, 16, 16, 16, 16, 64], &[5, 4, 3, 2, 1, 0], "issue"),
        fixed(&[32, 2048, 32, 32], &[0, 2, 1, 3], "issue"),
        fixed(&[256, 1024, 256], &[0, 2, 1], "issue"),
        fixed(&[8192, 8192], &[1, 0], "issue"),
        fixed(&[8191, 8193], &[1, 0], "issue"),
        // Attention: (batch, heads, sequence, head dim) ↔ (batch, sequence, heads, head dim).
        fixed(&[16, 32, 1024, 128], &[0, 2, 1, 3], "picked"),
        fixed(&[16, 1024, 32, 128], &[0, 2, 3, 1], "picked"),
        fixed(&[8, 2048, 64, 64], &[0, 2, 1, 3], "picked"),
        fixed(&[8, 16, 4096, 128], &[0, 1, 3, 2], "picked"),
        // Images: NCHW ↔ NHWC, with few and many channels.
        fixed(&[64, 256, 64, 64], &[0, 2, 3, 1], "picked"),
        fixed(&[64, 64, 64, 256], &[0, 3, 1, 2], "picked"),
        fixed(&[256, 3, 288, 288], &[0, 2, 3, 1], "picked"),
        fixed(&[256, 288, 288, 3], &[0, 3, 1, 2], "picked"),
        fixed(&[128, 32, 128, 128], &[1, 0, 2, 3], "picked"),
        // Patches (B, H/p, p, W/p, p, C) → (B, H/p, W/p, p, p, C) and a pixel shuffle.
        fixed(&[64, 16, 16, 16, 16, 16], &[0, 1, 3, 2, 4, 5], "picked"),
        fixed(&[64, 64, 2, 2, 64, 64], &[0, 1, 4, 2, 5, 3], "picked"),
        // Reversals and rotations of ranks 3 to 5.
        fixed(&[256, 512, 512], &[2, 0, 1], "picked"),
        fixed(&[256, 512, 512], &[1, 2, 0], "picked"),
        fixed(&[32, 32, 256, 256], &[3, 2, 1, 0], "picked"),
        fixed(&[64, 64, 64, 256], &[1, 3, 0, 2], "picked"),
        fixed(&[16, 32, 32, 32, 128], &[4, 3, 2, 1, 0], "picked"),
        // Odd sizes, and an innermost axis of 2 and of 6 elements.
        fixed(&[401, 409, 409], &[2, 1, 0], "picked"),
        fixed(&[127, 509, 1031], &[1, 2, 0], "picked"),
        fixed(&[5, 1031, 13, 1009], &[3, 1, 2, 0], "picked"),
        fixed(&[4096, 8192, 2], &[1, 0, 2], "picked"),
        fixed(&[2048, 5461, 6], &[1, 0, 2], "picked"),
    ];
    let mut rng = SmallRng::seed_from_u64(SEED);
    while cases.len() < 60 {
        let rank = rng.random_range(2..=6);
        let mut dims: Vec<usize> = (0..rank - 1)
            .map(|_| match rng.random_range(0..3) {
                0 => 1 << rng.random_range(1..=9),
                1 => rng.random_range(1..=255) * 2 + 1,
                _ => rng.random_range(2..=600),
            })
            .collect();
        let rest = ELEMENTS / dims.iter().product::<usize>();
        if rest < 2 {
            continue;
        }
        dims.insert(rng.random_range(0..rank), rest);
        let mut perm: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            perm.swap(i, rng.random_range(0..=i));
        }
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            continue;
        }
        cases.push(Case { dims, perm, origin: "random" });
    }
    cases
}

impl Bench<'_> {
    /// Every case of [`suite`], f32 then bf16.
    pub(super) fn permute_suite(&mut self, cases: &[Case]) -> Result<()> {
        self.progress.inc_length(2 * cases.len() as u64);
        for case in cases {
            self.permute::<f32>(case)?;
        }
        for case in cases {
            self.permute::<bf16>(case)?;
        }
        Ok(())
    }

    fn permute<T: Element>(&mut self, case: &Case) -> Result<()> {
        let dtype = short_type_name::<T>();
        let label = case.label();
        self.progress.set_message(format!("permute {dtype} {label}"));
        let plan = PermutePlan::new(&case.dims, &case.perm, T::WIDTH)?;
        let n = plan.elements;
        let bytes = n * size_of::<T>();
        let src = self.gpu.upload(&random::<T>(n))?;
        let mut dst = self.gpu.alloc_zeros::<T>(n)?;
        let (warmup, runs) = if self.args.quick { (2, 5) } else { (self.args.warmup, self.args.runs) };
        // Every case is 128 MiB or more on each side, past any L2: one buffer set.
        let VersusCopy { kernel: stats, copy, .. } = versus_copy(self.gpu, warmup, runs, bytes, |_| {
            Ok::<_, anyhow::Error>(self.gpu.permute_with_plan(&plan, &src, &mut dst)?)
        })?;
        let moved = 2 * bytes as u64;
        self.record(Row::new(format!("permute ({})", case.origin), dtype, label, (moved, stats), (moved, copy)));
        Ok(())
    }
}

/// The suite's summary per type: cases, median and minimum % of the copy.
pub fn summary(rows: &[Row]) -> String {
    let mut out = String::new();
    for dtype in ["f32", "bf16"] {
        let mut of: Vec<f64> = rows
            .iter()
            .filter(|r| r.kernel.starts_with("permute") && r.dtype == dtype)
            .map(|r| 100.0 * r.of_copy())
            .collect();
        if of.is_empty() {
            continue;
        }
        of.sort_by(f64::total_cmp);
        let median = if of.len() % 2 == 1 { of[of.len() / 2] } else { (of[of.len() / 2 - 1] + of[of.len() / 2]) / 2.0 };
        out += &format!(
            "permute {dtype}: {} cases, median {median:.1}% of the copy, minimum {:.1}%, {} under 80%\n",
            of.len(),
            of[0],
            of.iter().filter(|&&p| p < 80.0).count()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_has_sixty_valid_cases_of_ranks_two_to_six_near_2_26_elements() {
        let cases = suite();
        assert_eq!(cases.len(), 60);
        assert_eq!(cases.iter().filter(|c| c.origin == "random").count(), 30);
        for c in &cases {
            assert!((2..=6).contains(&c.dims.len()), "{}", c.label());
            let n: usize = c.dims.iter().product();
            assert!(n > ELEMENTS / 2 && n <= ELEMENTS + ELEMENTS / 16, "{}: {n}", c.label());
            PermutePlan::new(&c.dims, &c.perm, bankwise::Width::B4).unwrap();
        }
        // Seeded: the same suite every time.
        assert_eq!(suite(), cases);
    }
}
