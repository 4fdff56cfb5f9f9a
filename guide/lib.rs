//! The guide's chapters as documentation, so that `cargo test -p bankwise-guide` compiles and
//! runs every Rust code block in them (`mdbook build guide` renders the same files).

macro_rules! chapters {
    ($($module:ident = $file:literal),* $(,)?) => {$(
        #[doc = include_str!(concat!("chapters/", $file))]
        pub mod $module {}
    )*};
}

chapters!(
    introduction = "introduction.md",
    setup = "setup.md",
    first_kernel = "first-kernel.md",
    threads = "threads.md",
    shared_memory = "shared-memory.md",
    bank_conflicts = "bank-conflicts.md",
    transpose = "transpose.md",
    reduction = "reduction.md",
    matmul = "matmul.md",
    patterns = "patterns.md",
    tensors = "tensors.md",
    measuring = "measuring.md",
    exercises = "exercises.md",
    from_rust_cuda = "from-rust-cuda.md",
    articles = "articles.md",
    appendix_compute_1x = "appendix-compute-1x.md",
);

pub mod samples;
