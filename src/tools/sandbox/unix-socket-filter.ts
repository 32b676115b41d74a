/*
 * The seccomp filter that keeps sandboxed commands from making Unix sockets (README, "Sandbox").
 * The network namespace cuts TCP and UDP to the host and abstract Unix sockets (they belong to a
 * network namespace), but not a socket file: `connect()` to `/run/postgresql/.s.PGSQL.5432`, the
 * D-Bus system bus or a container runtime's socket only needs the path to be visible, and a
 * read-only mount does not stop it. So, as Claude Code's sandbox does on Linux (npm
 * `@anthropic-ai/sandbox-runtime`, vendor/seccomp), `socket(AF_UNIX, …)` and `socket(AF_VSOCK, …)`
 * (VM sockets, which no network namespace fences either) fail with `EPERM`; `socketpair()`, which
 * makes a connected pair and reaches nobody, stays allowed, and so does every other call.
 *
 * The program is classic BPF for seccomp(2) mode `SECCOMP_SET_MODE_FILTER`, as bwrap(1)
 * `--seccomp FD` reads it: an array of `struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}` in the
 * machine's byte order (little-endian on every architecture below), run on each system call
 * against `struct seccomp_data {int nr; u32 arch; u64 instruction_pointer; u64 args[6]}`
 * (linux/seccomp.h). The call's ABI is checked first (its `arch`), since the numbers differ per
 * ABI: x86_64 (and its x32 ABI, the same numbers with bit 30 set), i386 (on an x86_64 kernel;
 * `socket` is 359, and `socketcall(SYS_SOCKET, …)` (102), whose arguments sit in memory a filter
 * cannot read, is refused whatever the family), aarch64 and 32-bit ARM (on an aarch64 kernel).
 * Any other ABI gets `EPERM` for every call: never silently unconfined. Numbers from the kernel's
 * syscall tables (arch/x86/entry/syscalls/syscall_64.tbl and syscall_32.tbl,
 * include/uapi/asm-generic/unistd.h, arch/arm/tools/syscall.tbl) and audit.h's `AUDIT_ARCH_*`.
 */

/** `AUDIT_ARCH_*` (linux/audit.h): the ABI a call was made through. */
const ARCH = { x86_64: 0xc000003e, i386: 0x40000003, aarch64: 0xc00000b7, arm: 0x40000028 };
/** The x32 ABI's calls are x86_64's numbers with this bit set (`__X32_SYSCALL_BIT`). */
const X32_BIT = 0x40000000;
/** `socket`'s number per ABI, and i386's `socketcall` with its sub-call `SYS_SOCKET` (linux/net.h). */
const SOCKET = { x86_64: 41, i386: 359, aarch64: 198, arm: 281 };
const SOCKETCALL_I386 = 102;
const SYS_SOCKET = 1;
/** The families refused: `AF_UNIX` (1) and `AF_VSOCK` (40), linux/socket.h. */
const REFUSED_FAMILIES = [1, 40];
/** Offsets in `struct seccomp_data`: the call number, its ABI, the low 32 bits of its first argument. */
const NR = 0;
const ARCH_OFFSET = 4;
const FIRST_ARGUMENT = 16;
/** `SECCOMP_RET_ALLOW`, and `SECCOMP_RET_ERRNO | EPERM` (the call fails with errno 1). */
const ALLOW = 0x7fff0000;
const REFUSE = 0x00050000 | 1;

/** A BPF instruction whose jump targets are still labels. */
type Instruction =
  | { load: number }
  | { equals: number; to: string }
  | { return: number }
  | { label: string };

/** `BPF_LD|BPF_W|BPF_ABS`, `BPF_JMP|BPF_JEQ|BPF_K`, `BPF_RET|BPF_K` (linux/bpf_common.h). */
const LOAD_WORD = 0x20;
const JUMP_IF_EQUAL = 0x15;
const RETURN = 0x06;

/** Loads the call number and goes to `target` (the family check) for each of `numbers`, else allows the call. */
function checkCall(label: string, numbers: readonly number[], target = "family"): Instruction[] {
  return [
    { label },
    { load: NR },
    ...numbers.map((number) => ({ equals: number, to: target })),
    { return: ALLOW },
  ];
}

const PROGRAM: readonly Instruction[] = [
  { load: ARCH_OFFSET },
  { equals: ARCH.x86_64, to: "x86_64" },
  { equals: ARCH.i386, to: "i386" },
  { equals: ARCH.aarch64, to: "aarch64" },
  { equals: ARCH.arm, to: "arm" },
  { return: REFUSE },
  ...checkCall("x86_64", [SOCKET.x86_64, SOCKET.x86_64 | X32_BIT]),
  { label: "i386" },
  { load: NR },
  { equals: SOCKET.i386, to: "family" },
  { equals: SOCKETCALL_I386, to: "socketcall" },
  { return: ALLOW },
  { label: "socketcall" },
  { load: FIRST_ARGUMENT },
  { equals: SYS_SOCKET, to: "refuse" },
  { return: ALLOW },
  ...checkCall("aarch64", [SOCKET.aarch64]),
  ...checkCall("arm", [SOCKET.arm]),
  { label: "family" },
  { load: FIRST_ARGUMENT },
  ...REFUSED_FAMILIES.map((family) => ({ equals: family, to: "refuse" })),
  { return: ALLOW },
  { label: "refuse" },
  { return: REFUSE },
];

/** The program's bytes: labels resolved to forward jumps (`jt`; `jf` 0 falls through). */
function assemble(program: readonly Instruction[]): Uint8Array {
  const instructions = program.filter((instruction) => !("label" in instruction));
  const labels = new Map<string, number>();
  let index = 0;
  for (const instruction of program) {
    if ("label" in instruction) {
      labels.set(instruction.label, index);
    } else {
      index += 1;
    }
  }
  const bytes = new DataView(new ArrayBuffer(instructions.length * 8));
  instructions.forEach((instruction, position) => {
    const offset = position * 8;
    let code = RETURN;
    let jumpIfTrue = 0;
    let value = 0;
    if ("load" in instruction) {
      code = LOAD_WORD;
      value = instruction.load;
    } else if ("equals" in instruction) {
      const target = labels.get(instruction.to);
      if (target === undefined || target <= position) {
        throw new Error(`seccomp filter: no label ${instruction.to} ahead`);
      }
      code = JUMP_IF_EQUAL;
      jumpIfTrue = target - position - 1;
      value = instruction.equals;
    } else if ("return" in instruction) {
      value = instruction.return;
    }
    bytes.setUint16(offset, code, true);
    bytes.setUint8(offset + 2, jumpIfTrue);
    bytes.setUint8(offset + 3, 0);
    bytes.setUint32(offset + 4, value >>> 0, true);
  });
  return new Uint8Array(bytes.buffer);
}

/** Node's names (`process.arch`) of the processors whose kernels' ABIs the filter knows. */
const KNOWN_PROCESSORS = new Set(["x64", "ia32", "arm64", "arm"]);

let assembled: Uint8Array | undefined;

/**
 * The filter's bytes for bwrap's `--seccomp FD`, or `undefined` on a processor whose system
 * calls it does not know (`processor`, default `process.arch`): there a sandbox that must refuse
 * Unix sockets does not start (availability.ts says why), rather than run without the filter.
 */
export function unixSocketFilter(processor: string = process.arch): Uint8Array | undefined {
  if (!KNOWN_PROCESSORS.has(processor)) {
    return undefined;
  }
  assembled ??= assemble(PROGRAM);
  return assembled;
}
