/*
 * Test helper: give a kernel object an empty DACL, so that nobody else may
 * open it.
 *
 * Copyright 2026 The wine-backtrace-wct authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __DENY_ACCESS_H
#define __DENY_ACCESS_H

#include <windows.h>

static inline void deny_everyone( HANDLE object )
{
    SECURITY_DESCRIPTOR sd;
    ACL acl;

    InitializeAcl( &acl, sizeof(acl), ACL_REVISION );
    InitializeSecurityDescriptor( &sd, SECURITY_DESCRIPTOR_REVISION );
    SetSecurityDescriptorDacl( &sd, TRUE, &acl, FALSE );
    SetKernelObjectSecurity( object, DACL_SECURITY_INFORMATION, &sd );
}

#endif  /* __DENY_ACCESS_H */
