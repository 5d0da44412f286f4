# The source lists, one place for the Linux build (CMakeLists.txt) and the Windows one
# (cmake/windows-seat.cmake). The platform files (platform_posix.c or platform_win32.c,
# net_posix.c or net_win32.c) are added by each build.

# Small shared pieces: strings, paths, option reading. libc only.
set(SHARDCC_COMMON_SRC
  src/common/strbuf.c src/common/strvec.c src/common/path.c src/common/args.c
  src/common/sha256.c)
# The wrapper's decision code, shared with the CLI (`shardcc classify`). libc only.
set(SHARDCC_WRAPCORE_SRC
  src/wrap/seat.c src/wrap/options.c src/wrap/nvcc_options.c src/wrap/gcc_options.c
  src/wrap/cl_options.c src/wrap/rsp.c src/wrap/argv.c src/wrap/classify.c
  src/wrap/partition.c src/wrap/stub_elf.c src/wrap/stub_coff.c src/wrap/stub.c
  src/wrap/journal.c src/wrap/ccache_log.c src/wrap/ldseat.c src/wrap/devcode.c
  src/wrap/dryrun.c src/wrap/pipeline.c src/wrap/split.c)
# The pipeline's modules below the subcommands.
set(SHARDCC_CORE_SRC
  src/core/job.c src/core/toolchain.c src/core/jobenv.c src/core/jrnl.c src/core/artifact.c
  src/core/merge.c src/core/cmstate.c src/core/compare.c src/core/ydoc.c src/core/grid.c
  src/core/ci_index.c src/core/plan.c src/core/explain.c src/core/remote.c src/core/seed.c
  src/core/progress.c src/core/plan_costs.c src/core/trust.c src/core/job_build.c)
# The CLI: main.c and one cmd_<name>.c per subcommand.
set(SHARDCC_CLI_SRC
  src/cli/main.c src/cli/cmd_env.c src/cli/cmd_classify.c src/cli/cmd_shard.c
  src/cli/cmd_merge.c src/cli/cmd_link.c src/cli/cmd_compare.c src/cli/cmd_local.c
  src/cli/cmd_matrix.c src/cli/cmd_report.c src/cli/cmd_plan.c src/cli/cmd_explain.c)
