/* shardcc: the command-line tool (the jobs around the seat wrapper). Dispatches to one
 * cmd_<name>() per subcommand; knows the version and where its seat binaries live. */
#include "cli.h"
#include "args.h"
#include "job.h"
#include "exit_status.h"
#include "path.h"
#include "strbuf.h"
#include "platform.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct command {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} commands[] = {
    {"env", cmd_env, "print the environment that makes a build a shard or the link job"},
    {"classify", cmd_classify, "show what the seat wrapper does with one compiler call"},
    {"shard", cmd_shard, "run the build as shard I of N and pack its artifact"},
    {"merge", cmd_merge, "union shard artifacts into one cache, checking them"},
    {"link", cmd_link, "merge, replay the full build from the cache, check the guards"},
    {"local", cmd_local, "run the whole pipeline (N shards, then the link) on this machine"},
    {"compare", cmd_compare, "are two objects, libraries or wheels the same bytes?"},
    {"plan", cmd_plan, "assign TUs to shards from measured compile times (or by count)"},
    {"explain", cmd_explain, "why the link job's misses missed: what differs from the owner"},
    {"report", cmd_report, "report a cell's shards and link job (text, or markdown for CI)"},
    {"matrix", cmd_matrix, "plan a build farm's shard and link jobs from package YAML files"},
};

/* "unknown command", with the nearest command's name where word is a typo of one */
static void unknown_command(const char *who, const char *word)
{
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    const char *near = args_nearest(word, names, sizeof names / sizeof names[0]);
    if (near)
        fprintf(stderr, "%s: unknown command \"%s\": did you mean \"%s\"? (see shardcc --help)\n",
                who, word, near);
    else
        fprintf(stderr, "%s: unknown command \"%s\" (see shardcc --help)\n", who, word);
}

static void usage(FILE *f)
{
    fputs("usage: shardcc [--version] [--help] <command> [--help] [args]\n"
          "       shardcc help <command>\n\n"
          "Splits the compiles of one CUDA/C++ build across N CI jobs through ccache and\n"
          "links one ordinary artifact in a final job. Commands:\n",
          f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].what);
    fputs("\nThe seats: shardcc-nvcc (CUDACXX), shardcc-nvcc-torch (PYTORCH_NVCC), shardcc-c++\n"
          "and shardcc-cc (CXX, CC), set up by `eval \"$(shardcc env ...)\"`.\n"
          "Exit status: 0 ok, 1 build failed, 2 usage/config, 3 guard failed, 4 artifact/I/O.\n",
          f);
}

/* Standard output written in full, or a message naming why not and EXIT_IO (a printing
 * command whose output went to a full disk or a closed pipe must not look successful, and
 * must not fail without a word). rc is the command's own status. */
static int finish_stdout(const char *name, int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    fprintf(stderr, "shardcc%s%s: cannot write to standard output: %s\n", name ? " " : "",
            name ? name : "", errno ? strerror(errno) : "write error");
    return rc == EXIT_OK ? EXIT_IO : rc;
}

/* Under GitHub Actions every failure (2, 3, 4) carries one ::error: the command's own
 * (report_error) where it wrote one, else this one, for the few messages printed below the
 * job layer (an unknown option, an option without its value). */
static int annotate_failure(const char *name, int rc)
{
    static const char *const what[] = {"", "", "a usage or configuration error", "a guard failed",
                                       "an artifact or I/O error"};
    if (rc >= EXIT_USAGE && rc <= EXIT_IO && report_annotations() == 0 && in_github_actions()) {
        struct strbuf title = STRBUF_INIT;
        sb_addf(&title, "shardcc %s", name);
        report_error(sb_str(&title), "exit status %d (%s): the message just above names the cause",
                     rc, what[rc]);
        sb_release(&title);
    }
    return rc;
}

int main(int argc, char **argv)
{
    plat_main_args(&argc, &argv); /* Windows: UTF-8 arguments from the UTF-16 command line */
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("shardcc %s\n", SHARDCC_VERSION);
        return finish_stdout(NULL, EXIT_OK);
    }
    if (!strcmp(argv[1], "help") && argc == 3) { /* shardcc help CMD: CMD --help */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[2], commands[i].name)) {
                char *hargv[] = {argv[2], "--help", NULL};
                return finish_stdout(commands[i].name, commands[i].fn(2, hargv));
            }
        unknown_command("shardcc help", argv[2]);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        (!strcmp(argv[1], "help") && argc == 2)) {
        usage(stdout);
        return finish_stdout(NULL, EXIT_OK);
    }
    if (!strcmp(argv[1], "help")) {
        fprintf(stderr, "usage: shardcc help [COMMAND]\n");
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = finish_stdout(commands[i].name, commands[i].fn(argc - 1, argv + 1));
            return annotate_failure(commands[i].name, rc);
        }
    unknown_command("shardcc", argv[1]);
    return EXIT_USAGE;
}
