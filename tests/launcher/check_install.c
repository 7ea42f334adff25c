/*
 * make install: into a temporary prefix, then a program built from the installed
 * header with pkg-config, linked to the installed shared library, runs under the
 * installed shmrun; a C++ MPI program built by the installed mpicxx (shmcxx) runs under
 * its mpiexec, as a script finds them with the MPI names' directory first in PATH; and
 * the man pages are there, and man reads them without a warning. Under a sanitizer both
 * programs are built with its flags (SHMC_TEST_CFLAGS), as the installed library is.
 */
/* check: alone */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

#ifndef SHMC_SRC_DIR
#define SHMC_SRC_DIR "."
#endif

START_TEST(test_install_prefix)
{
    char dir[] = "/tmp/shmc-install-XXXXXX", cmd[4096], out[16384];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char cxx[64];
    snprintf(cxx, sizeof cxx, "%s/sum.cpp", dir);
    FILE *f = fopen(cxx, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#include <mpi.h>\n#include <cstdio>\n#include <vector>\n"
          "int main(int argc, char **argv) {\n"
          "  MPI_Init(&argc, &argv);\n"
          "  int r, s = 0; std::vector<int> one(1, 1);\n"
          "  MPI_Comm_rank(MPI_COMM_WORLD, &r);\n"
          "  MPI_Allreduce(one.data(), &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);\n"
          "  if (r == 0) std::printf(\"c++ sum %d\\n\", s);\n"
          "  return MPI_Finalize();\n}\n",
          f);
    fclose(f);
    const char *build = getenv("SHMC_TEST_BUILD"), *san = getenv("SHMC_TEST_SAN");
    const char *cflags = getenv("SHMC_TEST_CFLAGS");
    int len =
        snprintf(cmd, sizeof cmd,
                 "set -e; make -s -C %s BUILD=%s SAN='%s' install PREFIX=%s/usr >/dev/null; "
                 "export PKG_CONFIG_PATH=%s/usr/lib/pkgconfig; "
                 "test \"$(pkg-config --modversion shmcomm)\" = %s; "
                 "test \"$(pkg-config --variable=prefix shmcomm)\" = %s/usr; "
                 "cc %s -o %s/ring %s/examples/ring.c -I%s/examples $(pkg-config --cflags --libs "
                 "shmcomm) -Wl,-rpath,%s/usr/lib; "
                 "%s/usr/bin/shmrun -n 3 %s/ring; "
                 "ldd %s/ring | grep -c %s/usr/lib/libshmcomm.so.0; "
                 "(PATH=%s/usr/lib/shmcomm/mpi-bin:$PATH; mpicxx %s -o %s/sum %s/sum.cpp && "
                 " mpiexec -np 3 --oversubscribe %s/sum); "
                 "for m in man1/shmrun.1 man1/shmcc.1 man1/shmcxx.1 man3/shmcomm.3; do "
                 "  test -s %s/usr/share/man/$m || { echo \"no $m\"; exit 1; }; "
                 "  if command -v man >/dev/null; then "
                 "    w=$(man --warnings -l %s/usr/share/man/$m 2>&1 >/dev/null); "
                 "    test -z \"$w\" || { echo \"$m: $w\"; exit 1; }; fi; "
                 "done; echo man pages ok; "
                 "rm -rf %s",
                 SHMC_SRC_DIR, build ? build : "build", san ? san : "", dir, dir,
                 SHMC_VERSION_STRING, dir, cflags ? cflags : "", dir, SHMC_SRC_DIR, SHMC_SRC_DIR,
                 dir, dir, dir, dir, dir, dir, cflags ? cflags : "", dir, dir, dir, dir, dir, dir);
    /* (a cut command could end in a partial `rm -rf`) */
    ck_assert_msg(len > 0 && (size_t)len < sizeof cmd, "the install command is too long");
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "install failed:\n%s", out);
    ck_assert_msg(strstr(out, "ring: every rank received its left neighbour's rank: ok"), "%s",
                  out);
    ck_assert_msg(strstr(out, "c++ sum 3\n"), "%s", out);
    ck_assert_msg(strstr(out, "man pages ok"), "%s", out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("install");
    TCase *t = tcase_create("prefix");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_install_prefix);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
