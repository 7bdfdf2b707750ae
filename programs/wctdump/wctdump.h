/*
 * wctdump: what its files share
 *
 * Copyright 2026 The wine-backtrace-wct authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with this library; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin St, Fifth Floor, Boston, MA 02110-1301, USA
 */

#ifndef __WCTDUMP_H
#define __WCTDUMP_H

#include "walk_names.h"

/* the version of the --json output's schema (docs/wctdump.schema.json); a
 * new version when a field changes meaning or goes, not when one is added */
#define WCTDUMP_JSON_SCHEMA 2

#define MAX_STACK 64

#endif  /* __WCTDUMP_H */
