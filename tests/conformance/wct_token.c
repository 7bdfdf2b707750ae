/*
 * Access checks under restricted tokens: Wait Chain Traversal (advapi32) and
 * GetThreadCallStack (coredll) must give a caller exactly what its token lets
 * it open. Test ids (A-nn) are listed in docs/ACCESS.md.
 *
 * A child process owns a mutex and blocks on a critical section held by its
 * second thread; the parent changes the DACLs of the child's process and main
 * thread, then looks at the child with restricted tokens, impersonated or as
 * the primary token of a process started with CreateProcessAsUser. For each
 * case it compares what OpenThread and OpenProcess(PROCESS_VM_READ) allow
 * with what Windows allows, and checks that GetThreadWaitChain and
 * GetThreadCallStack give no more and no less than those two.
 *
 * Where this Wine does not enforce a restriction, the comparison with
 * Windows is skipped and a "tokens: not enforced: ..." line says which; the
 * last line, "tokens: N checks: ...", sums up.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <windows.h>
#include <wct.h>
#include <pkfuncs.h>

#define STANDALONE
#include "wine/test.h"

static HWCT (WINAPI *pOpenThreadWaitChainSession)(DWORD, PWAITCHAINCALLBACK);
static void (WINAPI *pCloseThreadWaitChainSession)(HWCT);
static BOOL (WINAPI *pGetThreadWaitChain)(HWCT, DWORD_PTR, DWORD, DWORD, DWORD *, WAITCHAIN_NODE_INFO *, BOOL *);
static ULONG (WINAPI *pGetThreadCallStack)(HANDLE, ULONG, void *, DWORD, DWORD);

static HWCT session;
static WAITCHAIN_NODE_INFO nodes[WCT_MAX_NODE_COUNT];
static DWORD node_count;
static BOOL is_cycle;

static SID_IDENTIFIER_AUTHORITY nt_authority = { SECURITY_NT_AUTHORITY };
static SID_IDENTIFIER_AUTHORITY world_authority = { SECURITY_WORLD_SID_AUTHORITY };
static PSID authenticated_users, everyone, restricted_code;

/* what the checks found, for the summary line */
static unsigned int checks, enforced, not_enforced, agreed, compared;
static char not_enforced_list[512];

/* the child: its main thread and the mutex it owns */
struct target
{
    DWORD  pid;
    DWORD  tid;
    HANDLE thread;      /* full access, opened before any DACL was set */
    HANDLE mutex;
    HANDLE waiter;      /* our thread, blocked on the mutex */
    DWORD  waiter_tid;
};

#define CHAIN_FLAGS (WCT_OUT_OF_PROC_FLAG | WCT_OUT_OF_PROC_CS_FLAG)

static void load_functions(void)
{
    HMODULE advapi32 = LoadLibraryA( "advapi32.dll" ), coredll = LoadLibraryA( "coredll.dll" );

    pOpenThreadWaitChainSession = (void *)GetProcAddress( advapi32, "OpenThreadWaitChainSession" );
    pCloseThreadWaitChainSession = (void *)GetProcAddress( advapi32, "CloseThreadWaitChainSession" );
    pGetThreadWaitChain = (void *)GetProcAddress( advapi32, "GetThreadWaitChain" );
    if (coredll) pGetThreadCallStack = (void *)GetProcAddress( coredll, "GetThreadCallStack" );
    /* stock Wine 8.0 has only stubs, and no CloseThreadWaitChainSession */
    if (pCloseThreadWaitChainSession) session = pOpenThreadWaitChainSession( 0, NULL );
    if (!session) pGetThreadWaitChain = NULL;

    AllocateAndInitializeSid( &nt_authority, 1, SECURITY_AUTHENTICATED_USER_RID, 0, 0, 0, 0, 0, 0, 0,
                              &authenticated_users );
    AllocateAndInitializeSid( &world_authority, 1, SECURITY_WORLD_RID, 0, 0, 0, 0, 0, 0, 0, &everyone );
    AllocateAndInitializeSid( &nt_authority, 1, SECURITY_RESTRICTED_CODE_RID, 0, 0, 0, 0, 0, 0, 0,
                              &restricted_code );
}

/* Query 'tid' until the chain has 'expect' nodes (the threads need a moment
 * to block) or 5 s pass; returns what the last query returned. */
static BOOL query_chain( DWORD tid, DWORD flags, DWORD expect )
{
    DWORD start = GetTickCount();
    BOOL ret;

    for (;;)
    {
        memset( nodes, 0xcc, sizeof(nodes) );
        node_count = WCT_MAX_NODE_COUNT;
        SetLastError( 0xdeadbeef );
        ret = pGetThreadWaitChain( session, 0, flags, tid, &node_count, nodes, &is_cycle );
        if ((ret && node_count == expect) || GetTickCount() - start > 5000) return ret;
        if (!ret && GetLastError() != ERROR_MORE_DATA && GetLastError() != ERROR_TOO_MANY_THREADS) return ret;
        Sleep( 20 );
    }
}

static void *token_info( HANDLE token, TOKEN_INFORMATION_CLASS class )
{
    DWORD size = 0;
    void *info;

    GetTokenInformation( token, class, NULL, 0, &size );
    if (!size || !(info = malloc( size ))) return NULL;
    if (GetTokenInformation( token, class, info, size, &size )) return info;
    free( info );
    return NULL;
}

static HANDLE own_token(void)
{
    HANDLE token;
    BOOL ret = OpenProcessToken( GetCurrentProcess(), TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY |
                                 TOKEN_ADJUST_PRIVILEGES | TOKEN_IMPERSONATE, &token );
    ok( ret, "OpenProcessToken failed, error %lu\n", GetLastError() );
    return token;
}

/* the attributes of 'sid' among the token's groups, or -1 */
static LONG group_attributes( HANDLE token, PSID sid )
{
    TOKEN_GROUPS *groups = token_info( token, TokenGroups );
    LONG attrs = -1;
    DWORD i;

    if (!groups) return -1;
    for (i = 0; i < groups->GroupCount; i++)
        if (EqualSid( groups->Groups[i].Sid, sid )) attrs = groups->Groups[i].Attributes;
    free( groups );
    return attrs;
}

static BOOL has_privilege( HANDLE token, LUID luid )
{
    TOKEN_PRIVILEGES *privs = token_info( token, TokenPrivileges );
    BOOL found = FALSE;
    DWORD i;

    if (!privs) return FALSE;
    for (i = 0; i < privs->PrivilegeCount; i++)
        if (privs->Privileges[i].Luid.LowPart == luid.LowPart &&
            privs->Privileges[i].Luid.HighPart == luid.HighPart) found = TRUE;
    free( privs );
    return found;
}

/* A restricted version of our primary token; NULL (and a failure) if none. */
static HANDLE restricted_token( PSID disable, LUID_AND_ATTRIBUTES *delete_priv, SID_AND_ATTRIBUTES *restrict_sids,
                                DWORD restrict_count )
{
    SID_AND_ATTRIBUTES disable_sid = { disable, 0 };
    HANDLE token = own_token(), restricted = NULL;
    BOOL ret;

    ret = CreateRestrictedToken( token, 0, disable ? 1 : 0, disable ? &disable_sid : NULL,
                                 delete_priv ? 1 : 0, delete_priv, restrict_count, restrict_sids, &restricted );
    ok( ret, "CreateRestrictedToken failed, error %lu\n", GetLastError() );
    CloseHandle( token );
    return ret ? restricted : NULL;
}

static HANDLE impersonation_token( HANDLE primary )
{
    HANDLE token = NULL;
    BOOL ret = DuplicateTokenEx( primary, TOKEN_IMPERSONATE | TOKEN_QUERY | TOKEN_ADJUST_PRIVILEGES, NULL,
                                 SecurityImpersonation, TokenImpersonation, &token );
    ok( ret, "DuplicateTokenEx failed, error %lu\n", GetLastError() );
    return token;
}

/* Give the child's process and main thread a DACL: 'deny' (if any) denied
 * everything, then 'allow' granted 'process_access' on the process and
 * everything on the thread, then 'everyone' (if not 0) granted
 * 'everyone_access' on the process and everything on the thread. */
static void set_dacls( HANDLE process, HANDLE thread, PSID deny, PSID allow, DWORD process_access,
                       DWORD everyone_access )
{
    SECURITY_DESCRIPTOR sd;
    DWORD buffer[2][128];
    ACL *acl[2] = { (ACL *)buffer[0], (ACL *)buffer[1] };
    int i;

    for (i = 0; i < 2; i++)
    {
        InitializeAcl( acl[i], sizeof(buffer[i]), ACL_REVISION );
        if (deny) AddAccessDeniedAce( acl[i], ACL_REVISION, GENERIC_ALL, deny );
        if (allow) AddAccessAllowedAce( acl[i], ACL_REVISION, i ? GENERIC_ALL : process_access, allow );
        if (everyone_access)
            AddAccessAllowedAce( acl[i], ACL_REVISION, i ? GENERIC_ALL : everyone_access, everyone );
    }
    InitializeSecurityDescriptor( &sd, SECURITY_DESCRIPTOR_REVISION );
    SetSecurityDescriptorDacl( &sd, TRUE, acl[0], FALSE );
    ok( SetKernelObjectSecurity( process, DACL_SECURITY_INFORMATION, &sd ), "process DACL: error %lu\n",
        GetLastError() );
    SetSecurityDescriptorDacl( &sd, TRUE, acl[1], FALSE );
    ok( SetKernelObjectSecurity( thread, DACL_SECURITY_INFORMATION, &sd ), "thread DACL: error %lu\n",
        GetLastError() );
}

static void add_not_enforced( const char *what )
{
    size_t len = strlen( not_enforced_list );
    snprintf( not_enforced_list + len, sizeof(not_enforced_list) - len, "%s%s", len ? "," : "", what );
}

/* A property of a token or of an access check that Windows has: assert it,
 * except where this Wine lacks it, which is reported. Returns 'cond'. */
static BOOL windows_has( BOOL cond, const char *id, const char *what )
{
    if (cond) return TRUE;
    if (strcmp( winetest_platform, "wine" ))
    {
        ok( 0, "%s: %s\n", id, what );
        return FALSE;
    }
    skip( "not enforced by this Wine: %s\n", what );
    printf( "tokens: not enforced: %s: %s\n", id, what );
    return FALSE;
}

/* What the caller may open. */
struct access
{
    BOOL thread;    /* OpenThread( THREAD_QUERY_LIMITED_INFORMATION ) */
    BOOL memory;    /* OpenProcess( PROCESS_VM_READ ) */
};

static struct access probe_access( const struct target *t )
{
    struct access access;
    HANDLE handle;

    SetLastError( 0xdeadbeef );
    handle = OpenThread( THREAD_QUERY_LIMITED_INFORMATION, FALSE, t->tid );
    if (!handle) ok( GetLastError() == ERROR_ACCESS_DENIED, "OpenThread: error %lu\n", GetLastError() );
    access.thread = handle != NULL;
    if (handle) CloseHandle( handle );

    SetLastError( 0xdeadbeef );
    handle = OpenProcess( PROCESS_VM_READ, FALSE, t->pid );
    if (!handle) ok( GetLastError() == ERROR_ACCESS_DENIED, "OpenProcess: error %lu\n", GetLastError() );
    access.memory = handle != NULL;
    if (handle) CloseHandle( handle );
    return access;
}

/* GetThreadWaitChain and GetThreadCallStack with the caller's current token
 * must give what 'access' says the token may see; returns whether they did. */
static BOOL check_layer( const struct target *t, struct access access )
{
    LONG failures = winetest_get_failures();
    CallSnapshot frames[64];
    DWORD expect;
    ULONG n;
    BOOL ret;

    if (pGetThreadWaitChain)
    {
        /* the child's thread itself: ERROR_ACCESS_DENIED as the first node */
        ret = query_chain( t->tid, CHAIN_FLAGS, access.thread && access.memory ? 3 : 1 );
        if (!access.thread)
            ok( !ret && GetLastError() == ERROR_ACCESS_DENIED, "own chain: %d, error %lu\n", ret, GetLastError() );
        else
        {
            ok( ret, "own chain: error %lu\n", GetLastError() );
            ok( nodes[0].ObjectType == WctThreadType && nodes[0].ThreadObject.ThreadId == t->tid,
                "own chain: node 0 is %u, tid %04lx\n", nodes[0].ObjectType, nodes[0].ThreadObject.ThreadId );
        }

        /* our thread waits on the child's mutex: NoAccess later in the chain;
         * the critical section the child waits on is followed only with
         * PROCESS_VM_READ, without it the chain ends at the child's thread */
        expect = access.thread && access.memory ? 5 : 3;
        ret = query_chain( t->waiter_tid, CHAIN_FLAGS, expect );
        ok( ret, "chain: error %lu\n", GetLastError() );
        ok( node_count == expect || broken( access.thread && !access.memory && node_count == 5 ),
            "chain: %lu nodes, expected %lu\n", node_count, expect );
        if (ret && node_count >= 3)
        {
            ok( nodes[1].ObjectType == WctMutexType, "chain: node 1 is %u\n", nodes[1].ObjectType );
            ok( nodes[2].ObjectType == WctThreadType, "chain: node 2 is %u\n", nodes[2].ObjectType );
            if (!access.thread)
                ok( nodes[2].ObjectStatus == WctStatusNoAccess, "chain: node 2 status %u\n", nodes[2].ObjectStatus );
            else
                ok( nodes[2].ObjectStatus != WctStatusNoAccess && nodes[2].ThreadObject.ThreadId == t->tid,
                    "chain: node 2 status %u, tid %04lx\n", nodes[2].ObjectStatus, nodes[2].ThreadObject.ThreadId );
        }
        if (ret && node_count == 5)
            ok( nodes[3].ObjectType == WctCriticalSectionType && nodes[4].ObjectType == WctThreadType,
                "chain: nodes 3 and 4 are %u, %u\n", nodes[3].ObjectType, nodes[4].ObjectType );
    }

    if (pGetThreadCallStack)
    {
        /* a handle with every right on the thread, but the stack is memory of the process */
        SetLastError( 0xdeadbeef );
        n = pGetThreadCallStack( t->thread, ARRAYSIZE(frames), frames, 0, 0 );
        if (access.memory) ok( n > 0, "call stack: no frames, error %lu\n", GetLastError() );
        else ok( !n && GetLastError() == ERROR_ACCESS_DENIED, "call stack: %lu frames, error %lu\n",
                 n, GetLastError() );
    }
    return winetest_get_failures() == failures;
}

/* Look at the child with the current token: compare what it may open with
 * what Windows allows, then the layer with what it may open. Returns whether
 * the access matched Windows'. */
static BOOL check_access( const char *id, const char *what, const struct target *t, struct access windows )
{
    struct access access = probe_access( t );
    char text[256];
    BOOL matched;

    checks++;
    if (pGetThreadWaitChain || pGetThreadCallStack)
    {
        compared++;
        if (check_layer( t, access )) agreed++;
    }

    ok( access.thread == access.memory || windows.thread != windows.memory,
        "%s: thread %d, process %d\n", id, access.thread, access.memory );
    snprintf( text, sizeof(text), "%s (thread %s, memory %s; Windows: %s, %s)", what,
              access.thread ? "opened" : "denied", access.memory ? "opened" : "denied",
              windows.thread ? "opened" : "denied", windows.memory ? "opened" : "denied" );
    matched = windows_has( access.thread == windows.thread && access.memory == windows.memory, id, text );
    if (matched) enforced++;
    else
    {
        not_enforced++;
        add_not_enforced( id );
    }
    return matched;
}

static void impersonate( HANDLE token )
{
    ok( SetThreadToken( NULL, token ), "SetThreadToken failed, error %lu\n", GetLastError() );
}

static void revert(void)
{
    ok( RevertToSelf(), "RevertToSelf failed, error %lu\n", GetLastError() );
}

static DWORD WINAPI wait_handle( void *arg )
{
    WaitForSingleObject( arg, INFINITE );
    return 0;
}

static void start_waiter( struct target *t )
{
    t->waiter = CreateThread( NULL, 0, wait_handle, t->mutex, 0, &t->waiter_tid );
    ok( t->waiter != NULL, "CreateThread failed, error %lu\n", GetLastError() );
}

static const struct access granted = { TRUE, TRUE }, denied = { FALSE, FALSE }, thread_only = { TRUE, FALSE };

/* deny-only groups */
static void test_deny_only( struct target *t, HANDLE process )
{
    HANDLE token, imp;
    LONG attrs;

    winetest_push_context( "A-01" );
    set_dacls( process, t->thread, NULL, authenticated_users, GENERIC_ALL, 0 );
    ok( check_access( "A-01", "own token, DACL allows Authenticated Users", t, granted ),
        "the DACL does not let the test's own token in\n" );
    winetest_pop_context();

    if (!(token = restricted_token( authenticated_users, NULL, NULL, 0 ))) return;
    attrs = group_attributes( token, authenticated_users );
    ok( attrs != -1 && (attrs & SE_GROUP_USE_FOR_DENY_ONLY) && !(attrs & SE_GROUP_ENABLED),
        "Authenticated Users: attributes %#lx\n", attrs );
    imp = impersonation_token( token );

    winetest_push_context( "A-02" );
    impersonate( imp );
    check_access( "A-02", "deny-only group, DACL allows only that group", t, denied );
    revert();
    winetest_pop_context();

    winetest_push_context( "A-03" );
    set_dacls( process, t->thread, authenticated_users, NULL, 0, GENERIC_ALL );
    ok( check_access( "A-03", "own token, DACL denies Authenticated Users", t, denied ), "A-03 baseline\n" );
    impersonate( imp );
    check_access( "A-03", "deny-only group, DACL denies that group and allows Everyone", t, denied );
    revert();
    winetest_pop_context();

    CloseHandle( imp );
    CloseHandle( token );
}

/* the user's SID made deny-only */
static void test_deny_only_user( struct target *t, HANDLE process )
{
    HANDLE own = own_token(), token, imp;
    TOKEN_USER *user = token_info( own, TokenUser ), *restricted_user;

    winetest_push_context( "A-04" );
    set_dacls( process, t->thread, NULL, user->User.Sid, GENERIC_ALL, 0 );
    ok( check_access( "A-04", "own token, DACL allows the user", t, granted ), "A-04 baseline\n" );

    if ((token = restricted_token( user->User.Sid, NULL, NULL, 0 )))
    {
        restricted_user = token_info( token, TokenUser );
        windows_has( restricted_user && (restricted_user->User.Attributes & SE_GROUP_USE_FOR_DENY_ONLY), "A-04",
                     "CreateRestrictedToken makes the user's SID deny-only" );
        free( restricted_user );
        imp = impersonation_token( token );
        impersonate( imp );
        check_access( "A-04", "deny-only user SID, DACL allows only the user", t, denied );
        revert();
        CloseHandle( imp );
        CloseHandle( token );
    }
    winetest_pop_context();
    free( user );
    CloseHandle( own );
}

/* restricting SIDs: a second access check against them only */
static void test_restricting_sids( struct target *t, HANDLE process )
{
    HANDLE own = own_token(), token, imp;
    TOKEN_USER *user = token_info( own, TokenUser );
    TOKEN_GROUPS *groups = token_info( own, TokenGroups );
    SID_AND_ATTRIBUTES restrict_sids[4];
    DWORD count = 0, i;

    /* enough for the test's own objects, not the Authenticated Users the child's DACL names */
    restrict_sids[count].Sid = user->User.Sid;
    restrict_sids[count++].Attributes = 0;
    restrict_sids[count].Sid = everyone;
    restrict_sids[count++].Attributes = 0;
    restrict_sids[count].Sid = restricted_code;
    restrict_sids[count++].Attributes = 0;
    for (i = 0; groups && i < groups->GroupCount; i++)
    {
        if (!(groups->Groups[i].Attributes & SE_GROUP_LOGON_ID)) continue;
        restrict_sids[count].Sid = groups->Groups[i].Sid;
        restrict_sids[count++].Attributes = 0;
        break;
    }

    winetest_push_context( "A-05" );
    set_dacls( process, t->thread, NULL, authenticated_users, GENERIC_ALL, 0 );
    if ((token = restricted_token( NULL, NULL, restrict_sids, count )))
    {
        windows_has( IsTokenRestricted( token ), "A-05", "CreateRestrictedToken keeps restricting SIDs" );
        imp = impersonation_token( token );
        impersonate( imp );
        check_access( "A-05", "restricting SIDs that the DACL does not name", t, denied );
        revert();
        CloseHandle( imp );
        CloseHandle( token );
    }
    winetest_pop_context();
    free( groups );
    free( user );
    CloseHandle( own );
}

/* SeDebugPrivilege, removed and enabled */
static void test_debug_privilege( struct target *t, HANDLE process )
{
    LUID_AND_ATTRIBUTES debug = { { 0 }, 0 };
    TOKEN_PRIVILEGES enable;
    HANDLE own = own_token(), token, imp;
    BOOL held;

    ok( LookupPrivilegeValueA( NULL, SE_DEBUG_NAME, &debug.Luid ), "no SeDebugPrivilege\n" );
    enable.PrivilegeCount = 1;
    enable.Privileges[0].Luid = debug.Luid;
    enable.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
    held = has_privilege( own, debug.Luid );
    set_dacls( process, t->thread, NULL, NULL, 0, 0 );

    winetest_push_context( "A-06" );
    if ((token = restricted_token( NULL, &debug, NULL, 0 )))
    {
        ok( !has_privilege( token, debug.Luid ), "SeDebugPrivilege is still in the token\n" );
        imp = impersonation_token( token );
        SetLastError( 0xdeadbeef );
        AdjustTokenPrivileges( imp, FALSE, &enable, 0, NULL, NULL );
        ok( GetLastError() == ERROR_NOT_ALL_ASSIGNED, "enabling a removed privilege: error %lu\n",
            GetLastError() );
        impersonate( imp );
        check_access( "A-06", "SeDebugPrivilege removed, empty DACL", t, denied );
        revert();
        CloseHandle( imp );
        CloseHandle( token );
    }
    winetest_pop_context();

    winetest_push_context( "A-07" );
    imp = impersonation_token( own );
    SetLastError( 0xdeadbeef );
    AdjustTokenPrivileges( imp, FALSE, &enable, 0, NULL, NULL );
    if (!held || GetLastError() != ERROR_SUCCESS)
        skip( "A-07: the token does not hold SeDebugPrivilege (error %lu)\n", GetLastError() );
    else
    {
        impersonate( imp );
        check_access( "A-07", "SeDebugPrivilege enabled, empty DACL", t, granted );
        revert();
    }
    CloseHandle( imp );
    winetest_pop_context();
    CloseHandle( own );
}

/* an asynchronous request made while impersonating is answered for
 * the token it was made with, as a synchronous one, not for the worker
 * thread's (Windows' answer is not known: accepted as broken) */
static HANDLE async_done;
static DWORD async_status;

static void CALLBACK async_callback( HWCT wct, DWORD_PTR context, DWORD status, DWORD *count,
                                     WAITCHAIN_NODE_INFO *info, BOOL *cycle )
{
    async_status = status;
    SetEvent( async_done );
}

static void test_async_impersonation( struct target *t, HANDLE process )
{
    struct access access;
    HANDLE token, imp;
    HWCT async;
    BOOL ret;

    if (!pGetThreadWaitChain) return;
    winetest_push_context( "A-10" );
    set_dacls( process, t->thread, NULL, authenticated_users, GENERIC_ALL, 0 );
    if (!(token = restricted_token( authenticated_users, NULL, NULL, 0 ))) goto done;
    imp = impersonation_token( token );
    async_done = CreateEventA( NULL, FALSE, FALSE, NULL );
    async = pOpenThreadWaitChainSession( WCT_ASYNC_OPEN_FLAG, async_callback );
    ok( async != NULL, "no session, error %lu\n", GetLastError() );

    impersonate( imp );
    access = probe_access( t );
    node_count = WCT_MAX_NODE_COUNT;
    async_status = 0xdeadbeef;
    SetLastError( 0xdeadbeef );
    ret = pGetThreadWaitChain( async, 0, 0, t->tid, &node_count, nodes, &is_cycle );
    /* the answer must not depend on what the thread does after asking */
    revert();
    ok( !ret && GetLastError() == ERROR_IO_PENDING, "%d, error %lu\n", ret, GetLastError() );
    ok( WaitForSingleObject( async_done, 5000 ) == WAIT_OBJECT_0, "no callback\n" );
    compared++;
    if (access.thread)
    {
        skip( "the restricted token may open the thread\n" );
        ok( async_status == ERROR_SUCCESS, "status %lu\n", async_status );
        if (async_status == ERROR_SUCCESS) agreed++;
    }
    else
    {
        ok( async_status == ERROR_ACCESS_DENIED || broken( async_status == ERROR_SUCCESS ),
            "status %lu, expected ERROR_ACCESS_DENIED as a synchronous request\n", async_status );
        if (async_status == ERROR_ACCESS_DENIED) agreed++;
    }

    pCloseThreadWaitChainSession( async );
    CloseHandle( async_done );
    CloseHandle( imp );
    CloseHandle( token );
done:
    winetest_pop_context();
}

/* a process whose security descriptor was never set: opening it must
 * grant what an access check against the descriptor it reports grants */
static void test_default_descriptor( const char *exe )
{
    static GENERIC_MAPPING mapping = { STANDARD_RIGHTS_READ | PROCESS_VM_READ | PROCESS_QUERY_INFORMATION,
                                       STANDARD_RIGHTS_WRITE | PROCESS_VM_WRITE | PROCESS_VM_OPERATION,
                                       STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE, PROCESS_ALL_ACCESS };
    static SID_IDENTIFIER_AUTHORITY nt = { SECURITY_NT_AUTHORITY };
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    PRIVILEGE_SET privs;
    DWORD size, granted_access, privs_size = sizeof(privs);
    BOOL status = FALSE, opened;
    SECURITY_DESCRIPTOR *sd;
    HANDLE token, imp, handle;
    CallSnapshot frames[64];
    char cmd[MAX_PATH + 32];
    PSID admins;
    ULONG n;

    winetest_push_context( "A-11" );
    AllocateAndInitializeSid( &nt, 2, SECURITY_BUILTIN_DOMAIN_RID, DOMAIN_ALIAS_RID_ADMINS, 0, 0, 0, 0, 0, 0,
                              &admins );
    sprintf( cmd, "\"%s\" wct_token sleep", exe );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi ), "no child\n" );
    GetKernelObjectSecurity( pi.hProcess, OWNER_SECURITY_INFORMATION | GROUP_SECURITY_INFORMATION |
                             DACL_SECURITY_INFORMATION, NULL, 0, &size );
    sd = malloc( size );
    ok( GetKernelObjectSecurity( pi.hProcess, OWNER_SECURITY_INFORMATION | GROUP_SECURITY_INFORMATION |
                                 DACL_SECURITY_INFORMATION, sd, size, &size ), "no descriptor, error %lu\n",
        GetLastError() );

    if ((token = restricted_token( admins, NULL, NULL, 0 )))
    {
        imp = impersonation_token( token );
        ok( AccessCheck( sd, imp, PROCESS_VM_READ, &mapping, &privs, &privs_size, &granted_access, &status ),
            "AccessCheck failed, error %lu\n", GetLastError() );
        impersonate( imp );
        handle = OpenProcess( PROCESS_VM_READ, FALSE, pi.dwProcessId );
        opened = handle != NULL;
        if (handle) CloseHandle( handle );
        SetLastError( 0xdeadbeef );
        n = pGetThreadCallStack ? pGetThreadCallStack( pi.hThread, ARRAYSIZE(frames), frames, 0, 0 ) : 0;
        revert();
        if (pGetThreadCallStack)
            ok( opened ? n > 0 : !n && GetLastError() == ERROR_ACCESS_DENIED,
                "opened %d, call stack: %lu frames, error %lu\n", opened, n, GetLastError() );
        checks++;
        if (windows_has( opened == status, "A-11", opened ?
                         "a process without a set DACL opened with PROCESS_VM_READ, which the DACL it reports "
                         "does not grant (Administrators deny-only)" :
                         "a process without a set DACL denied PROCESS_VM_READ, which the DACL it reports grants" ))
            enforced++;
        else
        {
            not_enforced++;
            add_not_enforced( "A-11" );
        }
        CloseHandle( imp );
        CloseHandle( token );
    }
    TerminateProcess( pi.hProcess, 0 );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    free( sd );
    FreeSid( admins );
    winetest_pop_context();
}

/* a deny-only token as the primary token of a process started with
 * CreateProcessAsUser: the child checks (see probe_main) and reports. */
static void test_create_process_as_user( struct target *t, HANDLE process, const char *exe )
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    HANDLE token, thread, matched;
    char cmd[MAX_PATH + 128];
    DWORD code = 0xdeadbeef;

    winetest_push_context( "A-08" );
    set_dacls( process, t->thread, NULL, authenticated_users, GENERIC_ALL, 0 );
    if (!(token = restricted_token( authenticated_users, NULL, NULL, 0 ))) goto done;
    DuplicateHandle( GetCurrentProcess(), t->thread, GetCurrentProcess(), &thread, 0, TRUE, DUPLICATE_SAME_ACCESS );
    matched = CreateEventA( &sa, TRUE, FALSE, NULL );
    sprintf( cmd, "\"%s\" wct_token probe %lu %lu %Iu %Iu %Iu", exe, t->pid, t->tid, (ULONG_PTR)t->mutex,
             (ULONG_PTR)thread, (ULONG_PTR)matched );
    if (!CreateProcessAsUserA( token, NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ))
        ok( 0, "CreateProcessAsUser failed, error %lu\n", GetLastError() );
    else
    {
        ok( WaitForSingleObject( pi.hProcess, 60000 ) == WAIT_OBJECT_0, "the probe did not finish\n" );
        GetExitCodeProcess( pi.hProcess, &code );
        ok( !code, "the probe failed %lu checks (its own lines above)\n", code );
        /* its checks of the layer are counted in its exit code */
        checks++;
        if (pGetThreadWaitChain || pGetThreadCallStack)
        {
            compared++;
            if (!code) agreed++;
        }
        if (WaitForSingleObject( matched, 0 ) == WAIT_OBJECT_0) enforced++;
        else
        {
            not_enforced++;
            add_not_enforced( "A-08" );
        }
        CloseHandle( pi.hProcess );
        CloseHandle( pi.hThread );
    }
    CloseHandle( matched );
    CloseHandle( thread );
    CloseHandle( token );
done:
    winetest_pop_context();
}

/* The process started by A-08, with the restricted token as its own. */
static void probe_main( char **argv )
{
    struct target t = { 0 };
    HANDLE token, matched;
    LONG attrs;

    t.pid = strtoul( argv[3], NULL, 10 );
    t.tid = strtoul( argv[4], NULL, 10 );
    t.mutex = (HANDLE)(ULONG_PTR)_strtoui64( argv[5], NULL, 10 );
    t.thread = (HANDLE)(ULONG_PTR)_strtoui64( argv[6], NULL, 10 );
    matched = (HANDLE)(ULONG_PTR)_strtoui64( argv[7], NULL, 10 );
    load_functions();
    winetest_push_context( "A-08" );

    /* the process runs with the token it was given */
    ok( OpenProcessToken( GetCurrentProcess(), TOKEN_QUERY, &token ), "OpenProcessToken: error %lu\n",
        GetLastError() );
    attrs = group_attributes( token, authenticated_users );
    ok( attrs != -1 && (attrs & SE_GROUP_USE_FOR_DENY_ONLY) && !(attrs & SE_GROUP_ENABLED),
        "the process token's Authenticated Users: attributes %#lx\n", attrs );
    CloseHandle( token );

    start_waiter( &t );
    if (check_access( "A-08", "CreateProcessAsUser with a deny-only group, DACL allows only that group",
                      &t, denied ))
        SetEvent( matched );
    TerminateThread( t.waiter, 0 );
    CloseHandle( t.waiter );
    winetest_pop_context();
}

/* The child looked at: its main thread owns the mutex, then blocks on a
 * critical section that its second thread holds. */
static CRITICAL_SECTION section;
static HANDLE section_held;

static DWORD WINAPI hold_section( void *arg )
{
    EnterCriticalSection( &section );
    SetEvent( section_held );
    WaitForSingleObject( CreateEventA( NULL, TRUE, FALSE, NULL ), 60000 );
    return 0;
}

static void target_main( HANDLE mutex, HANDLE ready )
{
    InitializeCriticalSection( &section );
    section_held = CreateEventA( NULL, TRUE, FALSE, NULL );
    WaitForSingleObject( mutex, INFINITE );
    CloseHandle( CreateThread( NULL, 0, hold_section, NULL, 0, NULL ) );
    WaitForSingleObject( section_held, INFINITE );
    SetEvent( ready );
    EnterCriticalSection( &section );
}

/* the thread may be opened, the memory of its process may not */
static void test_thread_only( struct target *t, HANDLE process )
{
    HANDLE token, imp;

    winetest_push_context( "A-09" );
    set_dacls( process, t->thread, NULL, authenticated_users, GENERIC_ALL,
               PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE );
    ok( check_access( "A-09", "own token, DACL allows Authenticated Users", t, granted ), "A-09 baseline\n" );
    if ((token = restricted_token( authenticated_users, NULL, NULL, 0 )))
    {
        imp = impersonation_token( token );
        impersonate( imp );
        check_access( "A-09", "deny-only group, DACL lets Everyone query the process but not read it", t,
                      thread_only );
        revert();
        CloseHandle( imp );
        CloseHandle( token );
    }
    winetest_pop_context();
}

START_TEST(wct_token)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    struct target t = { 0 };
    char cmd[MAX_PATH + 64];
    HANDLE ready;
    char **argv;
    int argc = winetest_get_mainargs( &argv );

    if (argc >= 5 && !strcmp( argv[2], "target" ))
    {
        target_main( (HANDLE)(ULONG_PTR)_strtoui64( argv[3], NULL, 10 ),
                     (HANDLE)(ULONG_PTR)_strtoui64( argv[4], NULL, 10 ) );
        return;
    }
    if (argc >= 3 && !strcmp( argv[2], "sleep" ))
    {
        Sleep( 30000 );
        return;
    }
    if (argc >= 8 && !strcmp( argv[2], "probe" ))
    {
        probe_main( argv );
        return;
    }

    load_functions();
    if (!pGetThreadWaitChain) win_skip( "Wait Chain Traversal is not available\n" );
    if (!pGetThreadCallStack) win_skip( "coredll.dll is not available (not Windows Embedded Compact)\n" );

    t.mutex = CreateMutexA( &sa, FALSE, NULL );
    ready = CreateEventA( &sa, TRUE, FALSE, NULL );
    sprintf( cmd, "\"%s\" wct_token target %Iu %Iu", argv[0], (ULONG_PTR)t.mutex, (ULONG_PTR)ready );
    ok( CreateProcessA( NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi ), "no child\n" );
    ok( WaitForSingleObject( ready, 10000 ) == WAIT_OBJECT_0, "the child did not take the mutex\n" );
    t.pid = pi.dwProcessId;
    t.tid = pi.dwThreadId;
    t.thread = pi.hThread;
    start_waiter( &t );

    test_deny_only( &t, pi.hProcess );
    test_deny_only_user( &t, pi.hProcess );
    test_restricting_sids( &t, pi.hProcess );
    test_debug_privilege( &t, pi.hProcess );
    test_thread_only( &t, pi.hProcess );
    test_async_impersonation( &t, pi.hProcess );
    test_create_process_as_user( &t, pi.hProcess, argv[0] );
    test_default_descriptor( argv[0] );

    printf( "tokens: %u checks: %u as on Windows, %u not enforced by this Wine (%s); "
            "layer agreed with OpenThread/OpenProcess in %u of %u\n", checks, enforced, not_enforced,
            not_enforced ? not_enforced_list : "none", agreed, compared );
    printf( "figure: checks=%u as_windows=%u not_enforced=%u not_enforced_ids=%s agreed=%u compared=%u\n",
            checks, enforced, not_enforced, not_enforced ? not_enforced_list : "none", agreed, compared );

    TerminateProcess( pi.hProcess, 0 );
    ok( WaitForSingleObject( t.waiter, 5000 ) == WAIT_OBJECT_0, "the waiter did not finish\n" );
    CloseHandle( t.waiter );
    CloseHandle( pi.hProcess );
    CloseHandle( pi.hThread );
    CloseHandle( t.mutex );
    CloseHandle( ready );
    if (session) pCloseThreadWaitChainSession( session );
}
