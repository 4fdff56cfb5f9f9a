//! The matrix multiply ladder against the float64 CPU reference (`cpu::matmul`): random inputs
//! within its derived bound, small integer inputs exactly; `C` poisoned with NaN where `β = 0`
//! (it must not be read) and random where `β ≠ 0`; padded leading dimensions, with the padding
//! checked untouched.

use bankwise::matmul::{Float, MatmulKernel, MatmulShape};
use bankwise::{Error, Gpu, cpu};
use rand::{Rng, SeedableRng, rngs::SmallRng};

use super::{AddTrial, Check, Target};

/// `(m, n, k)`: 1, primes, non-multiples of the 32-wide tile, K = 1, thin and wide shapes.
const SHAPES: [(usize, usize, usize); 40] = [
    (1, 1, 1),
    (1, 257, 1),
    (257, 1, 1),
    (1, 1, 300),
    (1, 64, 7),
    (2, 3, 4),
    (5, 1, 9),
    (7, 7, 7),
    (13, 200, 11),
    (17, 300, 5),
    (31, 33, 35),
    (31, 37, 41),
    (32, 32, 32),
    (33, 65, 17),
    (33, 33, 33),
    (40, 50, 1),
    (63, 65, 64),
    (64, 64, 64),
    (65, 63, 31),
    (96, 97, 95),
    (97, 101, 103),
    (100, 3, 2),
    (127, 129, 1),
    (128, 1, 128),
    (1, 128, 128),
    (128, 128, 129),
    (3, 5, 1000),
    (200, 7, 3),
    (11, 13, 257),
    (47, 53, 59),
    (61, 67, 71),
    (73, 79, 83),
    (89, 2, 97),
    (2, 89, 97),
    (64, 96, 160),
    (160, 64, 96),
    (33, 1, 33),
    (1, 33, 33),
    (250, 130, 9),
    (9, 130, 250),
];

/// What a trial varies besides the shape.
#[derive(Clone, Copy, Debug)]
struct Case {
    alpha: f64,
    beta: f64,
    /// Extra elements at the end of every row (leading dimension = row length + pad).
    pad: usize,
    /// Small integers (checked exactly) instead of random reals.
    integers: bool,
}

pub fn trials(add: &mut AddTrial<'_>, target: Target) {
    for kernel in MatmulKernel::ALL {
        let k = kernel.name();
        for (i, &(m, n, kk)) in SHAPES.iter().enumerate() {
            // Cycle the cases over the shapes, so each shape meets one and each case many.
            let case = [
                Case { alpha: 1.0, beta: 0.0, pad: 0, integers: false },
                Case { alpha: -1.5, beta: 0.75, pad: 0, integers: false },
                Case { alpha: 1.0, beta: 1.0, pad: 3, integers: true },
                Case { alpha: 2.0, beta: 0.0, pad: 5, integers: false },
            ][i % 4];
            let shape = MatmulShape::new(m, n, kk);
            add(format!("{k}/f32/{shape}"), Box::new(move |g| check::<f32>(g, kernel, shape, case)));
            add(format!("{k}/f64/{shape}"), Box::new(move |g| check::<f64>(g, kernel, shape, case)));
        }
        if target == Target::Gpu {
            // A K past 8192, and a C larger than the L2 cache.
            let deep = MatmulShape::new(33, 70, 10_007);
            let case = Case { alpha: 1.0, beta: 0.5, pad: 1, integers: false };
            add(format!("{k}/f32/{deep}"), Box::new(move |g| check::<f32>(g, kernel, deep, case)));
            add(format!("{k}/f64/{deep}"), Box::new(move |g| check::<f64>(g, kernel, deep, case)));
            let big = MatmulShape::new(1500, 4099, 40);
            let case = Case { alpha: 1.0, beta: 0.0, pad: 0, integers: true };
            add(format!("{k}/f32/{big}"), Box::new(move |g| check::<f32>(g, kernel, big, case)));
        }
    }
    add("matmul/rejects_bad_arguments".into(), Box::new(rejects_bad_arguments));
}

/// `rows × ld` elements: the matrix's `rows × cols` in the first columns, `pad_value` after.
fn matrix<T: Float>(rng: &mut SmallRng, rows: usize, cols: usize, ld: usize, integers: bool, pad_value: f64) -> Vec<T> {
    (0..rows * ld)
        .map(|i| {
            let x = if i % ld >= cols {
                pad_value
            } else if integers {
                rng.random_range(-4i32..=4) as f64
            } else {
                // Reals in [-1, 1) with 20 significant bits: exact in f32.
                (rng.random_range(-(1 << 20)..(1 << 20)) as f64) / (1 << 20) as f64
            };
            T::from_f64(x)
        })
        .collect()
}

fn check<T: Float>(gpu: &Gpu, kernel: MatmulKernel, dims: MatmulShape, case: Case) -> Check {
    let shape = dims.with_leading_dimensions(dims.k + case.pad, dims.n + case.pad, dims.n + case.pad);
    let seed = (shape.m * 1_000_003 + shape.n * 1009 + shape.k) as u64;
    let mut rng = SmallRng::seed_from_u64(seed);
    // A's and B's padding holds NaN: reading it would poison the result.
    let a = matrix::<T>(&mut rng, shape.m, shape.k, shape.lda, case.integers, f64::NAN);
    let b = matrix::<T>(&mut rng, shape.k, shape.n, shape.ldb, case.integers, f64::NAN);
    // C: NaN where β = 0 (it must not be read), values where β ≠ 0; 7 in its padding.
    let c_fill = if case.beta == 0.0 { f64::NAN } else { 0.0 };
    let mut c = matrix::<T>(&mut rng, shape.m, shape.n, shape.ldc, case.integers, 7.0);
    if case.beta == 0.0 {
        for (i, x) in c.iter_mut().enumerate() {
            if i % shape.ldc < shape.n {
                *x = T::from_f64(c_fill);
            }
        }
    }
    let (alpha, beta) = (T::from_f64(case.alpha), T::from_f64(case.beta));
    let (want, bound) = cpu::matmul(alpha, &a, &b, beta, &c, shape)?;
    let (a_dev, b_dev) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut c_dev = gpu.upload(&c)?;
    gpu.matmul_with(kernel, alpha, &a_dev, &b_dev, beta, &mut c_dev, shape)?;
    let got = gpu.download(&c_dev)?;
    for (i, (&g, &x)) in got.iter().zip(&c).enumerate() {
        let (r, col) = (i / shape.ldc, i % shape.ldc);
        if col >= shape.n {
            if g.into().to_bits() != x.into().to_bits() {
                return Err(format!("{shape}: C's padding at ({r}, {col}) changed to {g:?}").into());
            }
            continue;
        }
        let (w, tol) = (want[r * shape.n + col], bound[r * shape.n + col]);
        let g: f64 = g.into();
        let ok = if case.integers { g == w } else { (g - w).abs() <= tol };
        if !ok {
            return Err(format!(
                "{shape} {case:?}: C[{r}][{col}] = {g:e}, reference {w:e}, bound {tol:e} ({})",
                if case.integers { "exact" } else { "within" }
            )
            .into());
        }
    }
    Ok(())
}

/// A rejected call: its shape, and the error it must get.
type BadCall = (MatmulShape, fn(&Error) -> bool);

fn rejects_bad_arguments(gpu: &Gpu) -> Check {
    let a = gpu.upload(&[1.0f32; 6])?;
    let b = gpu.upload(&[1.0f32; 6])?;
    let mut c = gpu.upload(&[0.0f32; 4])?;
    let cases: [BadCall; 3] = [
        (MatmulShape::new(2, 2, 0), |e| matches!(e, Error::ZeroDimension { what: "k" })),
        (MatmulShape::new(2, 2, 4), |e| matches!(e, Error::MatrixTooShort { matrix: "A", .. })),
        (MatmulShape::new(2, 2, 3).with_leading_dimensions(3, 1, 2), |e| {
            matches!(e, Error::LeadingDimension { matrix: "B", .. })
        }),
    ];
    for (shape, ok) in cases {
        match gpu.matmul(1.0, &a, &b, 0.0, &mut c, shape) {
            Err(e) if ok(&e) => {}
            other => return Err(format!("{shape}: expected its error, got {other:?}").into()),
        }
    }
    // Nothing was launched: C is as it was.
    if gpu.download(&c)? != [0.0; 4] {
        return Err("a rejected call changed C".into());
    }
    Ok(())
}
