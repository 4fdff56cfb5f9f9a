//! `bankwise ptx`: the resource report of every kernel, from ptxas.

use anyhow::{Context, Result, bail};
use bankwise::kernels::{ALL, PTX};
use bankwise::tools;

#[derive(clap::Args)]
pub struct Args {
    /// Architectures to assemble for.
    #[arg(long, value_delimiter = ',', default_value = "sm_70,sm_90")]
    arch: Vec<String>,
    /// Also write the PTX to this file.
    #[arg(long)]
    write: Option<std::path::PathBuf>,
}

pub fn run(args: &Args) -> Result<()> {
    if let Some(path) = &args.write {
        std::fs::write(path, PTX).with_context(|| format!("writing {}", path.display()))?;
        println!("PTX written to {} ({} bytes)", path.display(), PTX.len());
    }
    let dir = std::env::temp_dir().join(format!("bankwise-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut problems = Vec::new();
    for arch in &args.arch {
        let Some(ptxas) = tools::ptxas_for(arch) else {
            bail!(
                "no ptxas for {arch}: run `cargo xtask setup` (installs CUDA 12 and 13's from PyPI) or set BANKWISE_CUDA_BIN"
            );
        };
        let report =
            tools::assemble(&ptxas, PTX, arch, &dir.join(format!("{arch}.cubin"))).map_err(anyhow::Error::msg)?;
        println!("\n{arch} ({})", ptxas.display());
        println!(
            "{:<28} {:>9} {:>11} {:>11} {:>11}",
            "kernel", "registers", "smem bytes", "stack bytes", "spill bytes"
        );
        for k in &report {
            println!(
                "{:<28} {:>9} {:>11} {:>11} {:>11}",
                k.name,
                k.registers,
                k.shared_bytes,
                k.stack_bytes,
                k.spill_stores + k.spill_loads
            );
            if k.stack_bytes + k.spill_stores + k.spill_loads > 0 {
                problems.push(format!("{} uses local memory on {arch}", k.name));
            }
        }
        for name in ALL {
            if !report.iter().any(|k| k.name == *name) {
                problems.push(format!("{name} is missing from the {arch} report"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    if !problems.is_empty() {
        bail!("{}", problems.join("; "));
    }
    Ok(())
}
