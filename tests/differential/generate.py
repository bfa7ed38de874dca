#!/usr/bin/env python3
"""Random safe-tier kernels for differential testing: the GPU against the CPU simulator.

One generated program holds K kernels. Its main() runs each kernel on the current device
(oxide::Context::create(): the GPU, or the simulator with OXIDE_DEVICE=cpu) on fixed inputs and
prints one digest line per kernel:

    d1234_17 ou=3f2a... of=... ob=... ow=... au=... ai=... af=...

(a 64-bit FNV-1a hash of each output array). compare.py compares two such outputs. Every
kernel is generated from its own random stream, seeded by (seed, index), so

    generate.py --seed 1234 --kernels 100 -o p.cpp          # the program
    generate.py --seed 1234 --kernels 100 --only 17 -o k.cpp # kernel 17 alone, the same code

and `./p d1234_17` runs one kernel, `./p d1234_17 dump` prints its outputs value by value.

What the kernels do (all of it the SAFE tier, under launch contracts):
  * u32 arithmetic of every kind (wrapping, so no UB): + - * / % with a non-zero divisor,
    shifts by (x & 31), bit operations, <bit> functions, comparisons, selects;
  * i32 arithmetic on values whose magnitude the generator tracks (no overflow, no INT_MIN / -1);
  * "exact" floats: multiples of 2^-d of bounded magnitude (tracked), so that every + - * and the
    sums of float atomics are exact: FMA contraction and the order of atomic adds cannot change
    them; floor, min/max, abs, conversions to and from bounded integers;
  * "any" floats: + - / sqrt min max abs, scaling by powers of two and comparisons, correctly
    rounded on both sides (IEEE division and sqrt, no FMA can be formed: no product of two
    variables feeds an addition). With --fmad off (the program is then built with --no-fmad),
    general products too. NaNs are hashed as one value (their payloads differ by design);
  * branches (divergent, warp-uniform and block-uniform), loops (constant, uniform and divergent
    trip counts), shared memory written, synchronised (sync_threads) and read at another
    thread's index, shared-memory atomics, warp shuffles (idx/up/down/xor), votes (any/all/
    ballot), redux (reduce_add/min/max/and/or/xor), warp::sum/max/min of floats (a butterfly,
    the same order on both), match_any/match_all, AtomicSpan updates (add/min/max/and/or/xor;
    their return values are never used, so the result does not depend on the order), grid-stride
    loops, and outputs through DisjointSpan witnesses: per thread (index_1d or grid_stride), per
    warp (warp::index()) and per block (block::index()).
Every kernel is race-free by construction, so its result does not depend on the schedule:
OXIDE_SIM_SCHEDULE=random must not change it either.
"""
import argparse
import math
import random
import sys

NIN = 4096          # elements of each input array
NATOM = 64          # elements of each AtomicSpan
EXACT_LIMIT = 1 << 24
I32_LIMIT = 1 << 30
BLOCKS = [32, 64, 96, 128, 256]


class Val:
    """An expression: its C++ text, and for bounded kinds its magnitude bound (and 2^-d grid)."""

    def __init__(self, code, m=0, d=0):
        self.code, self.m, self.d = code, m, d


class Kernel:
    def __init__(self, seed, index, fmad=True):
        self.rng = random.Random("%d:%d" % (seed, index))
        self.name = "d%d_%d" % (seed, index)
        self.fmad = fmad
        r = self.rng
        self.bs = r.choice(BLOCKS)
        self.grid_stride = r.random() < 0.25
        self.n = r.choice([r.randint(1, 64), r.randint(1, 3000), r.randint(1, 3000), self.bs * r.randint(1, 8)])
        if self.grid_stride:
            self.grid = r.randint(1, 4)
        else:
            self.grid = (self.n + self.bs - 1) // self.bs
        self.warps = (self.bs + 31) // 32
        self.vars = {"u": [], "i": [], "e": [], "f": []}  # name -> Val (bounds of the variable)
        self.lines = []
        self.indent = 1
        self.counter = 0
        self.shared = 0
        self.atomic_ops = 0
        self.p = [r.getrandbits(32), r.randint(-1000, 1000), r.choice([0.5, 1.25, -3.0, 0.0, 7.75, -0.125])]
        self.uses = set()
        self.au_op = r.choice(["fetch_add", "fetch_min", "fetch_max", "fetch_and", "fetch_or", "fetch_xor", "fetch_sub"])
        self.ai_op = r.choice(["fetch_add", "fetch_min", "fetch_max"])
        self.float_atomics = 0

    # ---- helpers ------------------------------------------------------------------------------
    def emit(self, text):
        self.lines.append("  " * self.indent + text)

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def const_u(self):
        r = self.rng
        return r.choice(["%uu" % r.randint(0, 16), "%uu" % r.getrandbits(32), "%uu" % r.randint(0, 255),
                         "0xffffffffu", "0x80000000u", "%uu" % (1 << r.randint(0, 31))])

    # ---- expressions --------------------------------------------------------------------------
    def gen_u(self, depth, ctx):
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            leaves = ["gi", "tid", "lane", "bid", "p0", "n", self.const_u()]
            if self.vars["u"]:
                leaves += [r.choice(self.vars["u"]).code] * 3
            if ctx.get("k"):
                leaves.append(ctx["k"])
            c = r.random()
            if c < 0.12:
                return "iu[(%s) %% iu.size()]" % self.gen_u(depth - 1, ctx)
            if c < 0.18 and self.vars["i"]:
                return "static_cast<u32>(%s)" % r.choice(self.vars["i"]).code
            if c < 0.22 and self.vars["e"]:
                return "static_cast<u32>(static_cast<i32>(%s))" % r.choice(self.vars["e"]).code
            if c < 0.26 and self.vars["f"]:
                a, b = r.choice(self.vars["f"]).code, self.gen_f(1, ctx)
                return "static_cast<u32>(%s %s %s)" % (a, r.choice(["<", "<=", "==", "!=", ">"]), b)
            return r.choice(leaves)
        a = self.gen_u(depth - 1, ctx)
        c = r.randrange(14)
        if c < 5:
            return "(%s %s %s)" % (a, r.choice(["+", "-", "*", "^", "&", "|"]), self.gen_u(depth - 1, ctx))
        if c == 5:
            return "(%s %s (%s | 1u))" % (a, r.choice(["/", "%"]), self.gen_u(depth - 1, ctx))
        if c == 6:
            return "(%s %s (%s & 31u))" % (a, r.choice(["<<", ">>"]), self.gen_u(depth - 1, ctx))
        if c == 7:
            f = r.choice(["std::popcount(%s)", "std::countl_zero(%s)", "std::countr_zero(%s)",
                          "std::rotl(%s, %d)" % ("%s", r.randint(0, 31)), "std::rotr(%s, %d)" % ("%s", r.randint(0, 31))])
            return "static_cast<u32>(%s)" % (f % a)
        if c == 8:
            return "std::%s(%s, %s)" % (r.choice(["min", "max"]), a, self.gen_u(depth - 1, ctx))
        if c == 9:
            return "(%s ? %s : %s)" % (self.gen_cond(depth - 1, ctx), a, self.gen_u(depth - 1, ctx))
        if c == 10:
            return "static_cast<u32>(%s %s %s)" % (a, r.choice(["<", "<=", "==", "!=", ">", ">="]),
                                                   self.gen_u(depth - 1, ctx))
        if c == 11:
            return "(~%s)" % a
        if c == 12:
            return "static_cast<u32>(static_cast<std::uint16_t>(%s) * %uu)" % (a, r.randint(1, 40000))
        return "(%s * %uu + %uu)" % (a, r.getrandbits(32) | 1, r.getrandbits(32))

    def gen_cond(self, depth, ctx):
        r = self.rng
        c = r.randrange(5)
        if c <= 1:
            a, b = self.gen_u(depth, ctx), self.gen_u(depth, ctx)
            if a == b:
                b = "(%s ^ %uu)" % (b, r.getrandbits(32) | 1)
            return "(%s %s %s)" % (a, r.choice(["<", ">", "==", "!=", "<="]), b)
        if c == 2 and self.vars["i"]:
            return "(%s %s %s)" % (self.gen_i(depth, ctx).code, r.choice(["<", ">", "==", ">="]), self.gen_i(depth, ctx).code)
        if c == 3 and self.vars["f"]:
            return "(%s %s %s)" % (self.gen_f(depth, ctx), r.choice(["<", ">", "==", ">=", "!="]), self.gen_f(depth, ctx))
        return "((%s & %uu) != 0u)" % (self.gen_u(depth, ctx), 1 << r.randint(0, 8))

    def clamp_i(self, v, m):
        if v.m <= m:
            return v
        return Val("std::clamp(%s, -%d, %d)" % (v.code, m, m), m, 0)

    def gen_i(self, depth, ctx):
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            c = r.random()
            if c < 0.3 and self.vars["i"]:
                return r.choice(self.vars["i"])
            if c < 0.5:
                return Val("ii[(%s) %% ii.size()]" % self.gen_u(depth - 1, ctx), 1000)
            if c < 0.6:
                return Val("p1", 1000)
            if c < 0.7 and self.vars["e"]:
                e = r.choice(self.vars["e"])
                if e.m < I32_LIMIT:
                    return Val("static_cast<i32>(%s)" % e.code, int(e.m))
            if c < 0.8:
                return Val("(static_cast<i32>(%s & 0xfffu) - 2048)" % self.gen_u(depth - 1, ctx), 2048)
            k = r.randint(-100, 100)
            return Val("(%d)" % k, abs(k))
        a = self.gen_i(depth - 1, ctx)
        b = self.gen_i(depth - 1, ctx)
        c = r.randrange(9)
        if c <= 1:
            op = r.choice(["+", "-"])
            if a.m + b.m > I32_LIMIT:
                a, b = self.clamp_i(a, 1 << 20), self.clamp_i(b, 1 << 20)
            return Val("(%s %s %s)" % (a.code, op, b.code), a.m + b.m)
        if c == 2:
            if a.m * b.m > I32_LIMIT:
                a, b = self.clamp_i(a, 1 << 15), self.clamp_i(b, 1 << 15)
            return Val("(%s * %s)" % (a.code, b.code), max(a.m * b.m, 1))
        if c == 3:  # b | 1 is odd, never 0; a is bounded, so never INT_MIN / -1
            return Val("(%s %s (%s | 1))" % (a.code, r.choice(["/", "%"]), b.code), a.m)
        if c == 4:
            return Val("(%s >> %d)" % (a.code, r.randint(0, 31)), a.m)
        if c == 5:
            return Val("std::%s(%s, %s)" % (r.choice(["min", "max"]), a.code, b.code), max(a.m, b.m))
        if c == 6:
            return Val("(%s ? %s : %s)" % (self.gen_cond(depth - 1, ctx), a.code, b.code), max(a.m, b.m))
        if c == 7:
            return Val("std::abs(%s)" % a.code, a.m)
        return Val("(-(%s))" % a.code, a.m)

    def exact_ok(self, m, d):
        return m * (1 << d) <= EXACT_LIMIT

    def clamp_e(self, v, m):
        """v limited to [-m, m] on the grid 2^-0 when its grid is too fine for m."""
        if v.m <= m:
            return v
        return Val("std::clamp(%s, %d.0f, %d.0f)" % (v.code, -m, m), m, v.d)

    def floor_e(self, v):
        return Val("std::floor(%s)" % v.code, v.m + 1, 0)

    def gen_e(self, depth, ctx):
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            c = r.random()
            if c < 0.3 and self.vars["e"]:
                return r.choice(self.vars["e"])
            if c < 0.55:
                return Val("fe[(%s) %% fe.size()]" % self.gen_u(depth - 1, ctx), 64, 4)
            if c < 0.65:
                k = r.randint(-64, 64)
                return Val("%.4ff" % (k / 4), abs(k / 4) + 0.25, 2)
            if c < 0.75:
                return Val("static_cast<float>(%s & 1023u)" % self.gen_u(depth - 1, ctx), 1023, 0)
            if c < 0.85:
                i = self.clamp_i(self.gen_i(depth - 1, ctx), 1 << 20)
                return Val("static_cast<float>(%s)" % i.code, i.m, 0)
            return Val("p2", 8, 3)
        a = self.gen_e(depth - 1, ctx)
        b = self.gen_e(depth - 1, ctx)
        c = r.randrange(10)
        if c <= 2:
            op = r.choice(["+", "-"])
            for _ in range(3):
                if self.exact_ok(a.m + b.m, max(a.d, b.d)):
                    break
                a, b = self.floor_e(self.clamp_e(a, 1 << 10)), self.floor_e(self.clamp_e(b, 1 << 10))
            return Val("(%s %s %s)" % (a.code, op, b.code), a.m + b.m, max(a.d, b.d))
        if c == 3:
            for _ in range(3):
                if self.exact_ok(a.m * b.m, a.d + b.d):
                    break
                a, b = self.floor_e(self.clamp_e(a, 1 << 6)), self.floor_e(self.clamp_e(b, 1 << 6))
            return Val("(%s * %s)" % (a.code, b.code), a.m * b.m, a.d + b.d)
        if c == 4:
            k = r.randint(1, 3)
            if r.random() < 0.5 and self.exact_ok(a.m, a.d + k):
                return Val("(%s * %sf)" % (a.code, 1.0 / (1 << k)), a.m / (1 << k), a.d + k)
            if a.m * (1 << k) * (1 << a.d) <= EXACT_LIMIT:
                return Val("(%s * %.1ff)" % (a.code, 1 << k), a.m * (1 << k), a.d)
            return a
        if c == 5:
            return Val("std::%s(%s, %s)" % (r.choice(["min", "max"]), a.code, b.code), max(a.m, b.m), max(a.d, b.d))
        if c == 6:
            return Val("std::%s(%s)" % (r.choice(["floor", "ceil", "trunc"]), a.code), a.m + 1, 0)
        if c == 7:
            return Val("std::abs(%s)" % a.code, a.m, a.d)
        if c == 8:
            return Val("(%s ? %s : %s)" % (self.gen_cond(depth - 1, ctx), a.code, b.code), max(a.m, b.m), max(a.d, b.d))
        return Val("(-(%s))" % a.code, a.m, a.d)

    def gen_f(self, depth, ctx):
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            c = r.random()
            if c < 0.35 and self.vars["f"]:
                return r.choice(self.vars["f"]).code
            if c < 0.6:
                return "fa[(%s) %% fa.size()]" % self.gen_u(depth - 1, ctx)
            if c < 0.7 and self.vars["e"]:
                return r.choice(self.vars["e"]).code
            if c < 0.8:
                return "static_cast<float>(%s)" % self.gen_u(depth - 1, ctx)
            if c < 0.9:
                return r.choice(["0.1f", "3.0f", "-1.5f", "1e-30f", "1e30f", "0.333333f", "p2", "1e-40f"])
            return self.gen_e(depth - 1, ctx).code
        a = self.gen_f(depth - 1, ctx)
        c = r.randrange(9)
        if c <= 2:
            return "(%s %s %s)" % (a, r.choice(["+", "-"]), self.gen_f(depth - 1, ctx))
        if c == 3:
            return "(%s / %s)" % (a, self.gen_f(depth - 1, ctx))
        if c == 4:
            if not self.fmad:
                return "(%s * %s)" % (a, self.gen_f(depth - 1, ctx))
            return "(%s * %s)" % (a, r.choice(["2.0f", "0.5f", "-4.0f", "0.25f", "1024.0f"]))
        if c == 5:
            return "std::sqrt(std::abs(%s))" % a
        if c == 6:
            return "std::%s(%s, %s)" % (r.choice(["min", "max"]), a, self.gen_f(depth - 1, ctx))
        if c == 7:
            return "(%s ? %s : %s)" % (self.gen_cond(depth - 1, ctx), a, self.gen_f(depth - 1, ctx))
        return r.choice(["std::abs(%s)", "(-(%s))"]) % a

    # ---- statements ---------------------------------------------------------------------------
    def declare(self, kind, ctx):
        d = self.rng.randint(1, 2)
        if kind == "u":
            v = Val(self.gen_u(d, ctx))
            t = "u32"
        elif kind == "i":
            v = self.gen_i(d, ctx)
            t = "i32"
        elif kind == "e":
            v = self.gen_e(d, ctx)
            t = "float"
        else:
            v = Val(self.gen_f(d, ctx))
            t = "float"
        name = self.fresh(kind)
        self.emit("%s %s = %s;" % (t, name, v.code))
        # Integer bounds, so that the clamps of later updates are exact float constants.
        self.vars[kind].append(Val(name, math.ceil(v.m), v.d))

    def assign(self, ctx):
        """Updates a variable in place, keeping its declared bounds (so it may happen in loops and branches)."""
        r = self.rng
        kinds = [k for k in "uief" if self.vars[k]]
        if not kinds:
            return
        kind = r.choice(kinds)
        v = r.choice(self.vars[kind])
        if kind == "u":
            op = r.choice(["=", "+=", "^=", "*=", "-="])
            self.emit("%s %s %s;" % (v.code, op, self.gen_u(2, ctx)))
        elif kind == "i":
            e = self.gen_i(2, ctx)
            if v.m + e.m <= I32_LIMIT and r.random() < 0.5:
                self.emit("%s = std::clamp(%s + %s, %d, %d);" % (v.code, v.code, e.code, -v.m, v.m))
            else:
                self.emit("%s = std::clamp(%s, %d, %d);" % (v.code, self.clamp_i(e, I32_LIMIT).code, -v.m, v.m))
        elif kind == "e":
            e = self.gen_e(2, ctx)
            if e.d > v.d:
                e = self.floor_e(self.clamp_e(e, 1 << 20))
            if self.exact_ok(v.m + e.m, v.d) and r.random() < 0.5:
                self.emit("%s = std::clamp(%s + %s, %d.0f, %d.0f);" % (v.code, v.code, e.code, -v.m, v.m))
            else:
                self.emit("%s = std::clamp(%s, %d.0f, %d.0f);" % (v.code, e.code, -v.m, v.m))
        else:
            self.emit("%s = %s;" % (v.code, self.gen_f(2, ctx)))

    def block(self, ctx, budget):
        """A sequence of statements; ctx says what the control flow allows."""
        r = self.rng
        for _ in range(budget):
            c = r.random()
            if c < 0.25:
                self.declare(r.choice("uuief"), ctx)
            elif c < 0.45:
                self.assign(ctx)
            elif c < 0.55 and ctx["depth"] < 3:
                self.branch(ctx)
            elif c < 0.63 and ctx["depth"] < 3:
                self.loop(ctx)
            elif c < 0.73 and ctx["warp"]:
                self.warp_op(ctx)
            elif c < 0.80 and ctx["block"] and not ctx["in_loop"]:
                self.shared_exchange(ctx)
            elif c < 0.87:
                self.atomic(ctx)
            else:
                self.declare(r.choice("uf"), ctx)

    def scoped(self, ctx, budget):
        # Variables declared inside a scope are not visible after it.
        saved = {k: list(v) for k, v in self.vars.items()}
        self.indent += 1
        self.block(ctx, budget)
        self.indent -= 1
        self.vars = saved

    def branch(self, ctx):
        r = self.rng
        kind = r.random()
        sub = dict(ctx, depth=ctx["depth"] + 1)
        if kind < 0.5:  # divergent
            cond = self.gen_cond(2, ctx)
            sub.update(warp=False, block=False)
        elif kind < 0.75:  # the same for the 32 lanes of a warp
            cond = "(((tid / 32u) * %uu + %s) & %uu) != 0u" % (r.getrandbits(8) | 1, self.uniform_u(), 1 << r.randint(0, 2))
            sub.update(block=False)
        else:  # the same for the block
            cond = "((bid * %uu + %s) & %uu) != 0u" % (r.getrandbits(8) | 1, self.uniform_u(), 1 << r.randint(0, 2))
        self.emit("if (%s) {" % cond)
        self.scoped(sub, r.randint(1, 2))
        if r.random() < 0.5:
            self.emit("} else {")
            self.scoped(sub, r.randint(1, 2))
        self.emit("}")

    def uniform_u(self):
        r = self.rng
        return r.choice(["p0", "n", "%uu" % r.getrandbits(16), "(p0 >> %d)" % r.randint(0, 28)])

    def loop(self, ctx):
        r = self.rng
        k = self.fresh("k")
        sub = dict(ctx, depth=ctx["depth"] + 1, in_loop=True, k=k)
        c = r.random()
        if c < 0.4:
            trips = r.randint(0, 9)
            bound = "%du" % trips
        elif c < 0.7:
            trips = 7
            bound = "((%s) & 7u)" % self.uniform_u()
        else:
            trips = 7
            bound = "((%s) & 7u)" % self.gen_u(2, ctx)
            sub.update(warp=False, block=False)
        sub["mult"] = ctx["mult"] * max(trips, 1)
        self.emit("for (u32 %s = 0; %s < %s; ++%s) {" % (k, k, bound, k))
        self.scoped(sub, r.randint(1, 2))
        self.emit("}")

    def warp_op(self, ctx):
        r = self.rng
        self.uses.add("warp")
        c = r.randrange(12)
        name = self.fresh("w")
        u = self.gen_u(2, ctx)
        if c <= 2:
            mode = r.choice(["shuffle", "shuffle_up", "shuffle_down", "shuffle_xor"])
            if mode == "shuffle":
                arg = r.choice(["(%s)" % self.gen_u(1, ctx), "%du" % r.randint(0, 31), "31u - lane"])
            else:
                arg = "%du" % r.randint(0, 31)
            if r.random() < 0.3:
                self.emit("float %s = oxide::warp::%s(%s, %s);" % (name, mode, self.gen_f(2, ctx), arg))
                self.vars["f"].append(Val(name))
            elif r.random() < 0.3 and self.vars["e"]:
                e = r.choice(self.vars["e"])
                self.emit("float %s = oxide::warp::%s(%s, %s);" % (name, mode, e.code, arg))
                self.vars["e"].append(Val(name, e.m, e.d))
            else:
                self.emit("u32 %s = oxide::warp::%s(%s, %s);" % (name, mode, u, arg))
                self.vars["u"].append(Val(name))
        elif c == 3:
            self.emit("u32 %s = oxide::warp::ballot(%s);" % (name, self.gen_cond(2, ctx)))
            self.vars["u"].append(Val(name))
        elif c == 4:
            self.emit("u32 %s = static_cast<u32>(oxide::warp::%s(%s));" % (name, r.choice(["any", "all"]), self.gen_cond(2, ctx)))
            self.vars["u"].append(Val(name))
        elif c <= 6:
            op = r.choice(["reduce_add", "reduce_min", "reduce_max", "reduce_and", "reduce_or", "reduce_xor", "sum", "max", "min"])
            self.emit("u32 %s = oxide::warp::%s(%s);" % (name, op, u))
            self.vars["u"].append(Val(name))
        elif c == 7:
            i = self.clamp_i(self.gen_i(2, ctx), 1 << 20)
            op = r.choice(["reduce_add", "reduce_min", "reduce_max", "sum", "max", "min"])
            m = i.m * 32 if op in ("reduce_add", "sum") else i.m
            self.emit("i32 %s = oxide::warp::%s(%s);" % (name, op, i.code))
            self.vars["i"].append(Val(name, m))
        elif c == 8:
            self.emit("float %s = oxide::warp::%s(%s);" % (name, r.choice(["sum", "max", "min"]), self.gen_f(2, ctx)))
            self.vars["f"].append(Val(name))
        elif c == 9:
            e = self.clamp_e(self.gen_e(2, ctx), 1 << 10)
            if e.d > 8:
                e = self.floor_e(e)
            op = r.choice(["sum", "max", "min"])
            self.emit("float %s = oxide::warp::%s(%s);" % (name, op, e.code))
            self.vars["e"].append(Val(name, e.m * 32 if op == "sum" else e.m, e.d))
        elif c == 10:
            self.emit("u32 %s = oxide::warp::%s(%s);" % (name, r.choice(["match_any", "match_all"]),
                                                        "(%s) & %uu" % (u, r.choice([1, 3, 7, 0xffffffff]))))
            self.vars["u"].append(Val(name))
        else:
            self.emit("oxide::warp::sync();")

    def shared_exchange(self, ctx):
        """Every thread writes its slot, a barrier, reads another thread's, a barrier."""
        r = self.rng
        self.uses.add("shared")
        self.shared += 1
        s = "sh%d" % self.shared
        B = self.bs
        c = r.randrange(4)
        if c == 0 or c == 1:
            typ, val, kind = ("u32", self.gen_u(2, ctx), "u") if c == 0 else ("float", self.gen_f(2, ctx), "f")
            self.emit("auto %s = oxide::shared_array<%s, %d>();" % (s, typ, B))
            self.emit("%s[tid] = %s;" % (s, val))
            self.emit("oxide::sync_threads();")
            name = self.fresh(kind)
            idx = r.choice(["(tid + %du) %% %du" % (r.randint(1, B - 1), B), "%du - tid" % (B - 1), "tid ^ %du" % r.randint(1, 31),
                            "(%s) %% %du" % (self.gen_u(1, ctx), B)])
            self.emit("%s %s = %s[%s];" % (typ, name, s, idx))
            self.emit("oxide::sync_threads();")
            self.vars[kind].append(Val(name))
        elif c == 2:  # a block reduction of bounded integers, in a fixed order
            i = self.clamp_i(self.gen_i(2, ctx), 1 << 16)
            self.emit("auto %s = oxide::shared_array<i32, %d>();" % (s, B))
            self.emit("%s[tid] = %s;" % (s, i.code))
            self.emit("oxide::sync_threads();")
            step = 1
            while step < B:
                step *= 2
            step //= 2
            self.emit("for (u32 st = %du; st > 0; st /= 2) {" % step)
            self.emit("  if (tid < st && tid + st < %du) %s[tid] = %s[tid] + %s[tid + st];" % (B, s, s, s))
            self.emit("  oxide::sync_threads();")
            self.emit("}")
            name = self.fresh("i")
            self.emit("i32 %s = %s[%s];" % (name, s, r.choice(["0", "tid / 2u", "(tid * 7u) %% %du" % B])))
            self.emit("oxide::sync_threads();")
            self.vars["i"].append(Val(name, i.m * B))
        else:  # a shared-memory histogram through atomics
            bins = r.choice([1, 4, 16, B])
            self.emit("auto %s = oxide::shared_array<u32, %d>();" % (s, bins))
            if bins == B:
                self.emit("%s[tid] = 0u;" % s)
            else:
                self.emit("if (tid < %du) %s[tid] = 0u;" % (bins, s))
            self.emit("oxide::sync_threads();")
            self.emit("oxide::AtomicRef<u32, oxide::Scope::block>(%s[(%s) %% %du]).%s(%s);" % (
                s, self.gen_u(2, ctx), bins, r.choice(["fetch_add", "fetch_xor", "fetch_or", "fetch_max"]), self.gen_u(1, ctx)))
            self.emit("oxide::sync_threads();")
            name = self.fresh("u")
            self.emit("u32 %s = %s[tid %% %du];" % (name, s, bins))
            self.emit("oxide::sync_threads();")
            self.vars["u"].append(Val(name))

    def atomic(self, ctx):
        r = self.rng
        self.uses.add("atomic")
        self.atomic_ops += 1
        c = r.randrange(3)
        idx = "(%s) %% %s.size()" % (self.gen_u(1, ctx), "X")
        # One kind of update per array and kernel: updates of one kind commute (the final value
        # does not depend on their order), an add and an and on one element do not.
        if c == 0:
            op = self.au_op
            if op in ("fetch_add", "fetch_sub") and r.random() < 0.5:
                op = r.choice(["fetch_add", "fetch_sub"])
            if op in ("fetch_add", "fetch_min", "fetch_max"):
                self.emit("au.%s(%s, %s);" % (op, idx.replace("X", "au"), self.gen_u(2, ctx)))
            else:
                self.emit("au[%s].%s(%s);" % (idx.replace("X", "au"), op, self.gen_u(2, ctx)))
        elif c == 1:
            self.emit("ai.%s(%s, %s);" % (self.ai_op, idx.replace("X", "ai"), self.gen_i(2, ctx).code))
        else:
            # Integers small enough that the sum of every add the launch can make stays below
            # 2^24 in magnitude: then every partial sum is exact, and the order does not matter.
            adds = self.grid * self.bs * ctx["mult"] * 8
            limit = min(64, EXACT_LIMIT // adds)
            if self.float_atomics >= 8 or limit < 1:
                self.emit("ai.%s(%s, %s);" % (self.ai_op, idx.replace("X", "ai"), self.gen_i(2, ctx).code))
                return
            self.float_atomics += 1
            e = self.gen_e(2, ctx)
            self.emit("af.fetch_add(%s, std::floor(std::clamp(%s, -%d.0f, %d.0f)));" % (idx.replace("X", "af"), e.code, limit, limit))

    # ---- the kernel ---------------------------------------------------------------------------
    def generate(self):
        r = self.rng
        top = {"warp": True, "block": True, "depth": 0, "in_loop": False, "mult": 1}
        self.emit("const u32 tid = oxide::thread_idx().x;")
        self.emit("const u32 bid = oxide::block_idx().x;")
        self.emit("const u32 lane = oxide::warp::lane_id();")
        if self.grid_stride:
            self.emit("const u32 gi = static_cast<u32>(oxide::thread::index_1d().get());")
        else:
            self.emit("const auto idx = oxide::thread::index_1d();")
            self.emit("const u32 gi = static_cast<u32>(idx.get());")
        self.declare("u", top)
        self.declare("f", top)
        self.block(top, r.randint(2, 7))
        if r.random() < 0.3:
            self.block_output(top)
        if r.random() < 0.3:
            self.warp_output(top)
        if self.grid_stride:
            self.emit("for (const auto &j : oxide::thread::grid_stride(n)) {")
            self.indent += 1
            self.emit("const u32 gj = static_cast<u32>(j.get());")
            sub = dict(top, warp=False, block=False, in_loop=True, k="gj",
                       mult=-(-self.n // (self.grid * self.bs)))
            saved = {k: list(v) for k, v in self.vars.items()}
            self.block(sub, r.randint(1, 2))
            self.final_writes("j", sub)
            self.vars = saved
            self.indent -= 1
            self.emit("}")
        else:
            self.final_writes("idx", top)

    def final_writes(self, witness, ctx):
        r = self.rng
        us = [v.code for v in self.vars["u"]] + ["%s(%s)" % ("static_cast<u32>", v.code) for v in self.vars["i"]]
        us += ["static_cast<u32>(static_cast<i32>(%s))" % v.code for v in self.vars["e"]]
        r.shuffle(us)
        mix = " ^ ".join("(%s * %uu)" % (u, r.getrandbits(32) | 1) for u in us[:6]) or "0u"
        self.emit("if (u32 *o = ou.get_mut(%s)) *o = %s;" % (witness, mix))
        fs = [v.code for v in self.vars["f"] + self.vars["e"]]
        self.emit("if (float *o = of.get_mut(%s)) *o = %s;" % (witness, r.choice(fs) if fs else self.gen_f(2, ctx)))

    def block_output(self, ctx):
        """Thread 0 writes the block's result (block::index()) after a shared-memory reduction."""
        self.uses.add("shared")
        self.shared += 1
        s = "sh%d" % self.shared
        self.emit("auto %s = oxide::shared_array<u32, %d>();" % (s, self.bs))
        self.emit("%s[tid] = %s;" % (s, self.gen_u(2, ctx)))
        self.emit("oxide::sync_threads();")
        self.emit("if (tid == 0) {")
        self.emit("  u32 acc = %uu;" % self.rng.getrandbits(32))
        self.emit("  for (u32 t = 0; t < %du; ++t) acc = acc * 31u + %s[t];" % (self.bs, s))
        self.emit("  if (u32 *o = ob.get_mut(oxide::block::index())) *o = acc;")
        self.emit("}")
        self.emit("oxide::sync_threads();")

    def warp_output(self, ctx):
        self.uses.add("warp")
        name = self.fresh("w")
        self.emit("u32 %s = oxide::warp::reduce_xor(%s) + oxide::warp::ballot(%s);" % (name, self.gen_u(2, ctx), self.gen_cond(1, ctx)))
        self.emit("if (u32 *o = ow.get_mut(oxide::warp::index())) *o = %s;" % name)

    def source(self):
        contract = ("domain = 1, block = %d, requires = (ou.size() == n, of.size() == n, iu.size() == %d, "
                    "ii.size() == %d, fe.size() == %d, fa.size() == %d, au.size() == %d)" % (
                        self.bs, NIN, NIN, NIN, NIN, NATOM))
        head = ("[[kernel, oxide::launch_contract(\"%s\")]]\nvoid %s(u32 n, u32 p0, i32 p1, float p2, SpanU iu, SpanI ii, "
                "SpanF fe, SpanF fa, OutU ou, OutF of, OutU ob, OutU ow, AtomU au, AtomI ai, AtomF af) {" % (contract, self.name))
        return "\n".join([head] + self.lines + ["}"])

    def runner(self):
        cfg = "oxide::LaunchConfig1D{%du, %du, 0u}" % (self.grid, self.bs)
        return ("  if (want(only, \"%s\")) run_one(ctx, stream, in, \"%s\", %s, %s, %du, %uu, %d, %sf, dump);" %
                (self.name, self.name, self.name, cfg, self.n, self.p[0], self.p[1], repr(float(self.p[2]))))


PRELUDE = r'''// Generated by tests/differential/generate.py --seed %(seed)d --kernels %(kernels)d%(extra)s: do not edit.
#include <oxide/oxide.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using u32 = std::uint32_t;
using i32 = std::int32_t;
using SpanU = oxide::Span<const u32>;
using SpanI = oxide::Span<const i32>;
using SpanF = oxide::Span<const float>;
using OutU = oxide::DisjointSpan<u32>;
using OutF = oxide::DisjointSpan<float>;
using AtomU = oxide::AtomicSpan<u32>;
using AtomI = oxide::AtomicSpan<i32>;
using AtomF = oxide::AtomicSpan<float>;
'''

HOST = r'''
namespace {
constexpr std::size_t kIn = %(nin)d, kAtom = %(natom)d;

struct Inputs {
  oxide::DeviceBuffer<u32> iu;
  oxide::DeviceBuffer<i32> ii;
  oxide::DeviceBuffer<float> fe, fa;
};

u32 next(std::uint64_t &s) { // splitmix64: the same inputs on every machine
  s += 0x9e3779b97f4a7c15ull;
  std::uint64_t z = s;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<u32>((z ^ (z >> 31)) >> 16);
}

Inputs make_inputs(oxide::Stream &stream, std::uint64_t seed) {
  std::vector<u32> iu(kIn);
  std::vector<i32> ii(kIn);
  std::vector<float> fe(kIn), fa(kIn);
  std::uint64_t s = seed;
  for (std::size_t k = 0; k < kIn; ++k) {
    iu[k] = next(s) ^ (next(s) << 16);
    ii[k] = static_cast<i32>(next(s) %% 2001u) - 1000;
    fe[k] = static_cast<float>(static_cast<i32>(next(s) %% 2049u) - 1024) / 16.0f; // exact: k / 16, |k| <= 1024
    const u32 kind = next(s) %% 8u;
    const float mant = 1.0f + static_cast<float>(next(s) %% 65536u) / 65536.0f;
    const int e = static_cast<int>(next(s) %% 61u) - 30;
    float x = std::ldexp(mant, e) * ((next(s) & 1u) ? -1.0f : 1.0f);
    if (kind == 0) x = static_cast<float>(static_cast<i32>(next(s) %% 200u) - 100);
    if (kind == 1) x = 0.0f;
    if (kind == 2) x = std::ldexp(mant, -140); // a denormal
    fa[k] = x;
  }
  return {oxide::DeviceBuffer<u32>::from_host(stream, iu), oxide::DeviceBuffer<i32>::from_host(stream, ii),
          oxide::DeviceBuffer<float>::from_host(stream, fe), oxide::DeviceBuffer<float>::from_host(stream, fa)};
}

std::uint64_t fnv(const std::vector<u32> &v) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (u32 x : v)
    for (int b = 0; b < 4; ++b) {
      h ^= (x >> (8 * b)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  return h;
}

// Floats by their bits, every NaN as one (GPUs and CPUs make NaNs of different payloads).
std::vector<u32> bits(const std::vector<float> &v) {
  std::vector<u32> out(v.size());
  for (std::size_t k = 0; k < v.size(); ++k)
    out[k] = std::isnan(v[k]) ? 0x7fc00000u : std::bit_cast<u32>(v[k]);
  return out;
}
std::vector<u32> bits(const std::vector<i32> &v) {
  std::vector<u32> out(v.size());
  for (std::size_t k = 0; k < v.size(); ++k)
    out[k] = static_cast<u32>(v[k]);
  return out;
}

bool want(const char *only, const char *name) { return only == nullptr || std::strcmp(only, name) == 0; }

void dump_values(const char *name, const char *array, const std::vector<u32> &v) {
  for (std::size_t k = 0; k < v.size(); ++k)
    std::printf("%%s %%s[%%zu] = 0x%%08x\n", name, array, k, v[k]);
}

template <class Kernel>
void run_one(oxide::Context &ctx, oxide::Stream &stream, Inputs &in, const char *name, Kernel kernel,
             oxide::LaunchConfig1D cfg, u32 n, u32 p0, i32 p1, float p2, bool dump) {
  try {
    auto ou = oxide::DeviceBuffer<u32>::zeroed(stream, n);
    auto of = oxide::DeviceBuffer<float>::zeroed(stream, n);
    auto ob = oxide::DeviceBuffer<u32>::zeroed(stream, cfg.grid);
    auto ow = oxide::DeviceBuffer<u32>::zeroed(stream, std::size_t{cfg.grid} * ((cfg.block + 31) / 32));
    auto au = oxide::DeviceBuffer<u32>::zeroed(stream, kAtom);
    auto ai = oxide::DeviceBuffer<i32>::zeroed(stream, kAtom);
    auto af = oxide::DeviceBuffer<float>::zeroed(stream, kAtom);
    auto launch = oxide::prepare(ctx, kernel, cfg);
    launch(stream, n, p0, p1, p2, in.iu, in.ii, in.fe, in.fa, ou, of, ob, ow, au, ai, af);
    stream.synchronize();
    const std::vector<u32> arrays[] = {ou.to_host(stream), bits(of.to_host(stream)), ob.to_host(stream),
                                       ow.to_host(stream), au.to_host(stream), bits(ai.to_host(stream)),
                                       bits(af.to_host(stream))};
    const char *names[] = {"ou", "of", "ob", "ow", "au", "ai", "af"};
    if (dump) {
      for (int a = 0; a < 7; ++a)
        dump_values(name, names[a], arrays[a]);
      return;
    }
    std::printf("%%s", name);
    for (int a = 0; a < 7; ++a)
      std::printf(" %%s=%%016llx", names[a], static_cast<unsigned long long>(fnv(arrays[a])));
    std::printf("\n");
  } catch (const oxide::Error &e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    std::printf("%%s ERROR %%s\n", name, what.c_str());
  }
  std::fflush(stdout);
}
} // namespace

int main(int argc, char **argv) try {
  const char *only = argc > 1 ? argv[1] : nullptr;
  const bool dump = argc > 2 && std::strcmp(argv[2], "dump") == 0;
  auto ctx = oxide::Context::create();
  auto stream = ctx.default_stream();
  Inputs in = make_inputs(stream, %(seed)dull);
  std::printf("# %%s\n", ctx.device().name().c_str());
%(runs)s
  return 0;
} catch (const oxide::Error &e) {
  std::printf("FATAL %%s\n", e.what());
  return 1;
}
'''


def program(seed, kernels, only=None, fmad=True, skip=()):
    indices = [only] if only is not None else [i for i in range(kernels) if i not in skip]
    ks = [Kernel(seed, i, fmad) for i in indices]
    for k in ks:
        k.generate()
    extra = (" --only %d" % only if only is not None else "") + ("" if fmad else " --fmad off")
    if skip:
        extra += " --skip " + ",".join(str(i) for i in sorted(skip))
    parts = [PRELUDE % {"seed": seed, "kernels": kernels, "extra": extra}]
    parts += [k.source() + "\n" for k in ks]
    parts.append(HOST % {"nin": NIN, "natom": NATOM, "seed": seed, "runs": "\n".join(k.runner() for k in ks)})
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--kernels", type=int, default=100)
    ap.add_argument("--only", type=int, help="generate only kernel ONLY of the program (to reproduce it)")
    ap.add_argument("--fmad", choices=["on", "off"], default="on",
                    help="off: also products of arbitrary floats (build the program with --no-fmad)")
    ap.add_argument("--skip", default="", help="comma-separated kernel indices to leave out (ones the compiler rejects)")
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()
    skip = {int(x) for x in args.skip.split(",") if x}
    text = program(args.seed, args.kernels, args.only, args.fmad == "on", skip)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
