/*
 * ia32-probe: can this kernel run 32-bit user code?
 *
 * 32-bit Windows programs run in Wine's WoW64 mode: a 64-bit process that
 * switches to the kernel's 32-bit user code segment to run the program's
 * code. A kernel booted with ia32_emulation=false (Linux 6.7 and later),
 * built with IA32_EMULATION_DEFAULT_DISABLED, or given no 32-bit code
 * segment by its virtual machine faults on that switch, and Wine then dies
 * before it says why. Nothing in /proc tells all of these apart, so a child
 * process tries the real thing: a far jump to the 32-bit code segment and
 * a far jump back, then exit.
 *
 * Exit status: 0 the kernel runs 32-bit code, 1 it does not, 2 the probe
 * could not tell (said on stderr). The answer is cached per boot, keyed by
 * the kernel's boot id, in $XDG_RUNTIME_DIR (or /tmp) as a file of the
 * user's own: it cannot go stale across a reboot. WINE_LAYER_TEST_NO_IA32=1
 * makes it answer "does not", so the tests reach the paths of such a
 * kernel on any machine; nothing makes it answer "does".
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum verdict { RUNS_IA32 = 0, NO_IA32 = 1, UNKNOWN = 2 };

/* the user code segments of x86_64 Linux (__USER32_CS, __USER_CS) */
#define USER32_CS 0x23
#define USER64_CS 0x33

/* In the child: jump to 32-bit code that jumps back to 64-bit code that
 * exits 0. Where the kernel runs no 32-bit code the first jump faults. */
static void try_ia32(void)
{
    struct __attribute__((packed)) { unsigned int offset; unsigned short selector; } far;
    unsigned char *page, *code32, *code64;
    unsigned int target;

    page = mmap( NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0 );
    if (page == MAP_FAILED) _exit( 3 );
    code32 = page;
    code64 = page + 64;

    /* 32-bit: ljmp $USER64_CS, $code64 */
    target = (unsigned int)(unsigned long)code64;
    code32[0] = 0xea;
    memcpy( code32 + 1, &target, 4 );
    code32[5] = USER64_CS;
    code32[6] = 0;

    /* 64-bit: mov $231, %eax (exit_group); xor %edi, %edi; syscall */
    memcpy( code64, "\xb8\xe7\x00\x00\x00\x31\xff\x0f\x05", 9 );

    far.offset = (unsigned int)(unsigned long)code32;
    far.selector = USER32_CS;
    __asm__ volatile( "ljmpl *%0" : : "m" (far) );
    _exit( 4 );
}

static enum verdict probe(void)
{
    int status;
    pid_t pid = fork();

    if (pid < 0)
    {
        fprintf( stderr, "ia32-probe: fork: %s\n", strerror( errno ) );
        return UNKNOWN;
    }
    if (!pid)
    {
        struct rlimit no_core = { 0, 0 };

        /* the fault is the expected answer, not a crash to keep */
        setrlimit( RLIMIT_CORE, &no_core );
        alarm( 5 );
        signal( SIGSEGV, SIG_DFL );
        signal( SIGBUS, SIG_DFL );
        signal( SIGILL, SIG_DFL );
        try_ia32();
    }
    while (waitpid( pid, &status, 0 ) < 0)
        if (errno != EINTR) return UNKNOWN;
    if (WIFEXITED( status ) && !WEXITSTATUS( status )) return RUNS_IA32;
    if (WIFSIGNALED( status ) && (WTERMSIG( status ) == SIGSEGV || WTERMSIG( status ) == SIGBUS ||
                                  WTERMSIG( status ) == SIGILL))
        return NO_IA32;
    if (WIFSIGNALED( status ))
        fprintf( stderr, "ia32-probe: the probe died of signal %d\n", WTERMSIG( status ) );
    else
        fprintf( stderr, "ia32-probe: the probe exited %d\n", WEXITSTATUS( status ) );
    return UNKNOWN;
}

static int read_boot_id( char *id, size_t size )
{
    FILE *f = fopen( "/proc/sys/kernel/random/boot_id", "r" );
    int ok;

    if (!f) return 0;
    ok = fgets( id, size, f ) != NULL;
    fclose( f );
    if (ok) id[strcspn( id, "\n" )] = 0;
    return ok && id[0];
}

static void cache_path( char *path, size_t size )
{
    const char *dir = getenv( "XDG_RUNTIME_DIR" );

    if (!dir || !dir[0] || access( dir, W_OK )) dir = "/tmp";
    snprintf( path, size, "%s/wine-layer-ia32-%u", dir, (unsigned int)getuid() );
}

/* The cached verdict for this boot, or UNKNOWN. Only a regular file of
 * this user, not a link, counts: another user could have put one there. */
static enum verdict read_cache( const char *path, const char *boot_id )
{
    char line[128], id[64];
    struct stat st;
    int fd, len, verdict;

    if ((fd = open( path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC )) < 0) return UNKNOWN;
    if (fstat( fd, &st ) || !S_ISREG( st.st_mode ) || st.st_uid != getuid() ||
        (len = read( fd, line, sizeof(line) - 1 )) <= 0)
    {
        close( fd );
        return UNKNOWN;
    }
    close( fd );
    line[len] = 0;
    if (sscanf( line, "%63s %d", id, &verdict ) != 2 || strcmp( id, boot_id )) return UNKNOWN;
    if (verdict != RUNS_IA32 && verdict != NO_IA32) return UNKNOWN;
    return verdict;
}

static void write_cache( const char *path, const char *boot_id, enum verdict verdict )
{
    char tmp[4200];
    FILE *f;
    int fd;

    snprintf( tmp, sizeof(tmp), "%s.%u", path, (unsigned int)getpid() );
    if ((fd = open( tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644 )) < 0) return;
    if (!(f = fdopen( fd, "w" )))
    {
        close( fd );
        unlink( tmp );
        return;
    }
    fprintf( f, "%s %d\n", boot_id, verdict );
    if (fclose( f ) || rename( tmp, path )) unlink( tmp );
}

int main( int argc, char *argv[] )
{
    char boot_id[64], path[4096];
    const char *fake = getenv( "WINE_LAYER_TEST_NO_IA32" );
    enum verdict verdict;
    int have_id;

    if (argc > 1)
    {
        fprintf( stderr, "usage: %s (exit 0: this kernel runs 32-bit code, 1: it does not)\n", argv[0] );
        return UNKNOWN;
    }
    if (fake && !strcmp( fake, "1" )) return NO_IA32;

    have_id = read_boot_id( boot_id, sizeof(boot_id) );
    cache_path( path, sizeof(path) );
    if (have_id && (verdict = read_cache( path, boot_id )) != UNKNOWN) return verdict;
    verdict = probe();
    if (have_id && verdict != UNKNOWN) write_cache( path, boot_id, verdict );
    return verdict;
}
