//! `bankwise ptx`: the resource report of every kernel, from ptxas.

use anyhow::{Context, Result, bail};
use bankwise::kernels::MODULES;
use bankwise::tools;

#[derive(clap::Args)]
pub struct Args {
    /// Architectures to assemble for.
    #[arg(long, value_delimiter = ',', default_value = "sm_70,sm_90")]
    arch: Vec<String>,
    /// Also write each module's PTX into this folder, as `<module>.ptx`.
    #[arg(long, value_name = "DIR")]
    write: Option<std::path::PathBuf>,
}

pub fn run(args: &Args) -> Result<()> {
    if let Some(dir) = &args.write {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for module in MODULES {
            let path = dir.join(format!("{}.ptx", module.name));
            std::fs::write(&path, module.ptx).with_context(|| format!("writing {}", path.display()))?;
            println!("PTX written to {} ({} bytes)", path.display(), module.ptx.len());
        }
    }
    let dir = std::env::temp_dir().join(format!("bankwise-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut problems = Vec::new();
    // Kernels whose local memory is measured and kept on purpose (`tools::known_local_memory`).
    let mut known = 0;
    for arch in &args.arch {
        let Some(ptxas) = tools::ptxas_for(arch) else {
            bail!(
                "no ptxas for {arch}: run `cargo xtask setup` (installs CUDA 12 and 13's from PyPI) or set BANKWISE_CUDA_BIN"
            );
        };
        println!("\n{arch} ({})", ptxas.display());
        println!(
            "{:<32} {:>9} {:>11} {:>11} {:>11}",
            "kernel", "registers", "smem bytes", "stack bytes", "spill bytes"
        );
        // Each module for the architectures that run it (`sm_80` PTX cannot become `sm_70` SASS).
        for module in MODULES.iter().filter(|m| runs(m, arch)) {
            let cubin = dir.join(format!("{}.{arch}.cubin", module.name));
            // The whole module is one ptxas run, silent for up to half a minute on 2 cores
            // (the builtin module's hundreds of entries): said on stderr before it starts.
            eprintln!(
                "ptx: assembling module {} ({} kernels) for {arch} with ptxas…",
                module.name,
                module.entries().len()
            );
            let report = tools::assemble(&ptxas, module.ptx, arch, &cubin).map_err(anyhow::Error::msg)?;
            for k in &report {
                println!(
                    "{:<32} {:>9} {:>11} {:>11} {:>11}",
                    k.name,
                    k.registers,
                    k.shared_bytes,
                    k.stack_bytes,
                    k.spill_stores + k.spill_loads
                );
                let (spills, stack) = tools::known_local_memory(&k.name, arch);
                if k.stack_bytes > stack || k.spill_stores > spills || k.spill_loads > spills {
                    problems.push(format!("{} uses local memory on {arch}", k.name));
                } else if k.stack_bytes + k.spill_stores + k.spill_loads > 0 {
                    known += 1;
                }
            }
            for e in module.entries() {
                if !report.iter().any(|k| k.name == e.name) {
                    problems.push(format!("{} is missing from the {arch} report", e.name));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if known > 0 {
        println!(
            "\n{known} of the rows above use the local memory they are known to (the matrix multiply's \
             register-capped tiles; bankwise::tools::known_local_memory says why); no other kernel uses any"
        );
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("; "));
    }
    Ok(())
}

/// Whether `module` runs on `arch` (`sm_XY`, compute capability X.Y).
fn runs(module: &bankwise::kernels::KernelModule, arch: &str) -> bool {
    let digits = arch.trim_start_matches("sm_").trim_end_matches(['a', 'f']);
    let Ok(n) = digits.parse::<i32>() else { return true };
    module.runs_on((n / 10, n % 10))
}
