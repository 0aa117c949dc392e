/* dr_x86.c - the fields of an x86-64 instruction's bytes (prefixes, opcode,
 * ModRM, SIB, displacement, immediate), parsed from as many bytes as are
 * known.  The drmemtrace models use it as context: the field a byte is in,
 * the instruction's length, where a branch's relative target or a
 * rip-relative displacement lies.  Never trusted: the codec codes every
 * byte and length, so a wrong guess only costs bits. */
#include "dr_int.h"

/* One-byte opcode map: bit 7 = ModRM; bits 0..3 = immediate kind. */
enum { I0, IB, IZ, IW, IV, IMOFF, IWB, IGRP };
#define M 0x80
static const uint8_t map0[256] = {
    /* 00 */ M, M, M, M, IB, IZ, 0, 0, M, M, M, M, IB, IZ, 0, 0,
    /* 10 */ M, M, M, M, IB, IZ, 0, 0, M, M, M, M, IB, IZ, 0, 0,
    /* 20 */ M, M, M, M, IB, IZ, 0, 0, M, M, M, M, IB, IZ, 0, 0,
    /* 30 */ M, M, M, M, IB, IZ, 0, 0, M, M, M, M, IB, IZ, 0, 0,
    /* 40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 60 */ 0, 0, M, M, 0, 0, 0, 0, IZ, M | IZ, IB, M | IB, 0, 0, 0, 0,
    /* 70 */ IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB,
    /* 80 */ M | IB, M | IZ, M | IB, M | IB, M, M, M, M, M, M, M, M, M, M, M, M,
    /* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* A0 */ IMOFF, IMOFF, IMOFF, IMOFF, 0, 0, 0, 0, IB, IZ, 0, 0, 0, 0, 0, 0,
    /* B0 */ IB, IB, IB, IB, IB, IB, IB, IB, IV, IV, IV, IV, IV, IV, IV, IV,
    /* C0 */ M | IB, M | IB, IW, 0, M, M, M | IB, M | IZ, IWB, 0, IW, 0, 0, IB, 0, 0,
    /* D0 */ M, M, M, M, IB, IB, 0, 0, M, M, M, M, M, M, M, M,
    /* E0 */ IB, IB, IB, IB, IB, IB, IB, IB, IZ, IZ, 0, IB, 0, 0, 0, 0,
    /* F0 */ 0, 0, 0, 0, 0, 0, M | IGRP, M | IGRP, 0, 0, 0, 0, 0, 0, M, M,
};
#undef M

/* Two-byte map (0F xx) opcodes without ModRM, as a bit set. */
static int map1_nomodrm(unsigned op)
{
    return op == 0x04 || (op >= 0x05 && op <= 0x0C && op != 0x0D) || op == 0x0E || (op >= 0x30 && op <= 0x37) ||
           op == 0x77 || (op >= 0x80 && op <= 0x8F) || (op >= 0xA0 && op <= 0xA2) || (op >= 0xA8 && op <= 0xAA) ||
           (op >= 0xC8 && op <= 0xCF);
}

static int map1_ib(unsigned op)
{
    return (op >= 0x70 && op <= 0x73) || op == 0xA4 || op == 0xAC || op == 0xBA || op == 0xC2 ||
           (op >= 0xC4 && op <= 0xC6) || op == 0x0F;
}

/* One-byte opcodes whose ModRM.reg picks the operation. */
static int grp0(unsigned op)
{
    return (op >= 0x80 && op <= 0x83) || op == 0x8F || op == 0xC0 || op == 0xC1 || op == 0xC6 || op == 0xC7 ||
           (op >= 0xD0 && op <= 0xD3) || op == 0xF6 || op == 0xF7 || op == 0xFE || op == 0xFF;
}
static int grp1(unsigned op)
{
    return op == 0x00 || op == 0x01 || op == 0xBA || op == 0xC7 || op == 0xAE || op == 0x18 ||
           (op >= 0x71 && op <= 0x73);
}

/* The parse stops where the bytes run out: x->field and x->pos then say
 * what the next byte is. */
#define NEED(i, f, p) do { if ((i) >= n) { x->field = (uint8_t)(f); x->pos = (uint8_t)(p); return; } } while (0)

void drx_parse(const uint8_t *b, unsigned n, drx_info *x)
{
    memset(x, 0, sizeof *x);
    unsigned i = 0, map = 0, vex = 0;
    for (;; i++) { /* legacy prefixes, then REX */
        NEED(i, DRX_PFX, i);
        uint8_t c = b[i];
        if (c == 0x66) x->opsz = 1;
        else if (c == 0xF2 || c == 0xF3) x->rep = 1;
        else if (!(c == 0xF0 || c == 0x2E || c == 0x36 || c == 0x3E || c == 0x26 || c == 0x64 || c == 0x65 ||
                   c == 0x67 || (c >= 0x40 && c <= 0x4F)))
            break;
        if (c >= 0x40 && c <= 0x4F) x->rexw = (c >> 3) & 1;
        if (i >= 14) break;
    }
    unsigned op = b[i++];
    if (op == 0x0F) {
        NEED(i, DRX_OP, 1);
        op = b[i++];
        map = 1;
        if (op == 0x38 || op == 0x3A) {
            map = op == 0x38 ? 2 : 3;
            NEED(i, DRX_OP, 2);
            op = b[i++];
        }
    } else if (op == 0xC4 || op == 0xC5 || op == 0x62) {
        unsigned np = op == 0xC5 ? 1 : op == 0xC4 ? 2 : 3;
        for (unsigned k = 0; k < np; k++) NEED(i + k, DRX_VEX, k);
        if (op == 0xC5) map = 1;
        else if (op == 0xC4) map = b[i] & 0x1F, x->rexw = b[i + 1] >> 7;
        else map = b[i] & 7, x->rexw = b[i + 1] >> 7;
        vex = 1;
        i += np;
        NEED(i, DRX_OP, 0);
        op = b[i++];
        if (map == 0 || map > 7) map = 7;
    }
    unsigned kind, modrm;
    if (map == 0) {
        kind = map0[op] & 15;
        modrm = map0[op] >> 7;
    } else if (map == 1) {
        modrm = vex ? op != 0x77 : !map1_nomodrm(op);
        kind = map1_ib(op) ? IB : (!vex && op >= 0x80 && op <= 0x8F) ? IZ : I0;
    } else {
        modrm = 1;
        kind = map == 3 ? IB : I0;
    }
    x->opid = (uint16_t)(map << 11 | op << 3);
    unsigned disp = 0;
    if (modrm) {
        NEED(i, DRX_MODRM, 0);
        unsigned m = b[i++];
        x->has_modrm = 1;
        x->modrm = (uint8_t)m;
        x->mod_known = 1;
        unsigned mod = m >> 6, rm = m & 7, reg = m >> 3 & 7;
        if ((map == 0 && grp0(op)) || (map == 1 && grp1(op))) x->opid |= (uint16_t)reg;
        if (kind == IGRP) kind = reg < 2 ? (op == 0xF6 ? IB : IZ) : I0;
        if (mod != 3 && rm == 4) {
            NEED(i, DRX_SIB, 0);
            unsigned sib = b[i++];
            if (mod == 0 && (sib & 7) == 5) disp = 4;
        }
        if (mod == 1) disp = 1;
        else if (mod == 2) disp = 4;
        else if (mod == 0 && rm == 5) disp = 4, x->riprel = 1;
    } else if (kind == IGRP) {
        kind = I0;
    }
    x->disp_off = (uint8_t)i;
    x->disp_n = (uint8_t)disp;
    unsigned imm = 0;
    switch (kind) {
    case IB: imm = 1; break;
    case IZ: imm = x->opsz && !(map == 0 && (op == 0xE8 || op == 0xE9)) && map != 1 ? 2 : 4; break;
    case IW: imm = 2; break;
    case IV: imm = x->rexw ? 8 : x->opsz ? 2 : 4; break;
    case IMOFF: imm = 8; break;
    case IWB: imm = 3; break;
    default: break;
    }
    x->imm_off = (uint8_t)(i + disp);
    x->imm_n = (uint8_t)imm;
    x->len = (uint8_t)(i + disp + imm > 15 ? 15 : i + disp + imm); /* known before the bytes of either */
    for (unsigned k = 0; k < disp; k++) NEED(i + k, DRX_DISP, k);
    i += disp;
    for (unsigned k = 0; k < imm; k++) NEED(i + k, DRX_IMM, k);
    i += imm;
    x->field = DRX_END;
    x->pos = (uint8_t)(n - i);
}
