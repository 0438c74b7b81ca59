//! Names the kind of build in the extension (`cclab._core.BUILD`), so that a benchmark says which
//! it measured: "profiled" when compiled from a profile (tools/pgo_build.py, `-Cprofile-use`),
//! "instrumented" while collecting one (`-Cprofile-generate`), else "plain".

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    // Cargo passes the flags separated by 0x1f; "-C profile-use=F" may come as two of them.
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default().replace('\u{1f}', " ");
    let kind = if flags.contains("profile-use") {
        "profiled"
    } else if flags.contains("profile-generate") {
        "instrumented"
    } else {
        "plain"
    };
    println!("cargo:rustc-env=CCLAB_BUILD_KIND={kind}");
}
