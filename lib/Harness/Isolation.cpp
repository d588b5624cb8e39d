//===- Isolation.cpp - MLIR work in a child process -------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Isolation.h"

#include <optional>

#include "tirx/Analysis/Access.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/InitAllTIRx.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllPasses.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>

#include <cstddef>
#include <vector>

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
/// This process's virtual memory size (/proc/self/statm's first field, in
/// pages); 0 when unknown.
uint64_t virtualMemoryBytes() {
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  unsigned long long pages = 0;
  int got = std::fscanf(f, "%llu", &pages);
  std::fclose(f);
  return got == 1 ? uint64_t(pages) * uint64_t(sysconf(_SC_PAGESIZE)) : 0;
}
} // namespace

namespace {
/// The child's exit status when it ran out of its address space.
constexpr int kOutOfMemoryExit = 75;

void outOfMemory() { _exit(kOutOfMemoryExit); }

void badAlloc(void *, const char *, bool) { _exit(kOutOfMemoryExit); }

bool writeAll(int fd, const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

/// The parent died: the child's whole group (it and what it started) goes.
void onParentDeath(int) { kill(0, SIGKILL); }

/// A process group of its own, dead with the parent.
void leadOwnGroup(pid_t parent) {
  // Signals a workspace lock deferred in the parent are not deferred here.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  setpgid(0, 0);
  std::signal(SIGTERM, onParentDeath);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) // the parent died before prctl
    _exit(1);
  int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    ::close(null);
  }
}

/// Denies the calling process (and what it forks) every system call that
/// opens, creates, renames or deletes a file, runs a program or opens a
/// socket: they fail with EPERM. False where seccomp is not available.
bool denyFilesAndPrograms() {
#if defined(__x86_64__)
  constexpr uint32_t arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr uint32_t arch = AUDIT_ARCH_AARCH64;
#else
  return false;
#endif
  static const long denied[] = {
      SYS_openat, SYS_execve, SYS_execveat, SYS_unlinkat, SYS_renameat,
      SYS_mkdirat, SYS_linkat, SYS_symlinkat, SYS_fchmodat, SYS_fchownat,
      SYS_truncate, SYS_mknodat, SYS_socket, SYS_renameat2,
#ifdef SYS_openat2
      SYS_openat2,
#endif
#ifdef SYS_open
      SYS_open, SYS_creat, SYS_unlink, SYS_rename, SYS_mkdir, SYS_rmdir,
      SYS_link, SYS_symlink, SYS_chmod, SYS_chown, SYS_lchown, SYS_mknod,
#endif
  };
  std::vector<sock_filter> filter = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
  };
  for (long nr : denied) {
    filter.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(nr), 0, 1));
    filter.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  }
  filter.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  sock_fprog program = {static_cast<unsigned short>(filter.size()),
                        filter.data()};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

/// In the child: its own group, limits, no output, death with the parent.
void enterChild(const ChildLimits &limits, pid_t parent) {
  leadOwnGroup(parent);
  if (limits.addressSpaceBytes) {
    struct rlimit as = {limits.addressSpaceBytes, limits.addressSpaceBytes};
    setrlimit(RLIMIT_AS, &as);
  }
  std::set_new_handler(outOfMemory);
  llvm::install_bad_alloc_error_handler(badAlloc);
  if (limits.seconds)
    alarm(limits.seconds);
}

/// A refusal as the child hands it back.
std::string refusalText(const Refusal &refusal) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(json::Object{{"ok", false}, {"refusal", refusal.toJSON()}});
  return text;
}

/// The child's work, its refusal as data, serialized.
/// The context children start from: made once in the parent, every
/// dialect loaded, before the first fork (see warmIsolation).
MLIRContext *&warmContext() {
  static MLIRContext *context = nullptr;
  return context;
}

std::string childResult(
    llvm::function_ref<llvm::Expected<std::string>(MLIRContext &)> work) {
  // The parent's warm context, this child's copy of it (fork): nothing the
  // child does reaches the parent's.
  std::optional<MLIRContext> own;
  if (!warmContext())
    own.emplace(harnessRegistry(), MLIRContext::Threading::DISABLED);
  MLIRContext &context = own ? *own : *warmContext();
  context.printOpOnDiagnostic(false);
  RefusalSink sink(&context);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    if (!diagnostics.empty())
      diagnostics += "\n";
    diagnostics += locationText(diag.getLocation()) + ": " + diag.str();
    for (const Diagnostic &note : diag.getNotes())
      diagnostics += "\n" + locationText(note.getLocation()) +
                     ": note: " + note.str();
    return success();
  });
  llvm::Expected<std::string> result = work(context);
  json::Object out;
  if (result) {
    out["ok"] = true;
    out["text"] = std::move(*result);
  } else {
    Refusal refusal = toRefusal(result.takeError());
    // The refusal that decided the failure is the one reported by the
    // transform or verifier, when there is one; else the diagnostics say
    // what went wrong.
    if (sink.first() && refusal.code != RefusalCode::resource_limit)
      refusal = *sink.first();
    else if (!diagnostics.empty())
      refusal.message += ":\n" + diagnostics;
    out["ok"] = false;
    out["refusal"] = refusal.toJSON();
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(std::move(out));
  return text;
}
} // namespace

DialectRegistry &mlir::tirx::harnessRegistry() {
  static DialectRegistry registry = [] {
    DialectRegistry r;
    registerTIRxToolDialects(r);
    // Scripts under the open policy may run registered passes by name.
    registerAllPasses();
    registerAllTIRxPasses();
    return r;
  }();
  return registry;
}

void mlir::tirx::warmIsolation() {
  if (warmContext())
    return;
  // Never freed: children are forked from it for the process's lifetime.
  warmContext() =
      new MLIRContext(harnessRegistry(), MLIRContext::Threading::DISABLED);
  warmContext()->loadAllAvailableDialects();
}

llvm::Expected<std::string> mlir::tirx::runIsolated(
    llvm::function_ref<llvm::Expected<std::string>(MLIRContext &)> work,
    const ChildLimits &limits, ChildAccess access) {
  if (std::getenv("TIRX_DEBUG_NO_FORK")) { // for debuggers only
    MLIRContext context(harnessRegistry(), MLIRContext::Threading::DISABLED);
    return work(context);
  }
  warmIsolation();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return refuse(RefusalCode::internal,
                  std::string("pipe() failed: ") + strerror(errno));
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t parent = getpid();
  // The child starts as a copy of this process: its address space at birth.
  uint64_t startBytes = virtualMemoryBytes();
  pid_t pid = fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return refuse(RefusalCode::internal,
                  std::string("fork() failed: ") + strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    enterChild(limits, parent);
    if (access == ChildAccess::None && !denyFilesAndPrograms())
      _exit(writeAll(fds[1], refusalText(Refusal(
                                 RefusalCode::internal,
                                 std::string("cannot deny the MLIR process "
                                             "files (seccomp): ") +
                                     strerror(errno))))
                ? 0
                : 1);
    _exit(writeAll(fds[1], childResult(work)) ? 0 : 1);
  }
  setpgid(pid, pid);
  ::close(fds[1]);
  std::string text;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    text.append(buffer, size_t(n));
  }
  ::close(fds[0]);
  // The child has ended (its pipe closed): before it is reaped, while its
  // pid cannot be reused, whatever it started goes with its group.
  siginfo_t info;
  while (waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 &&
         errno == EINTR) {
  }
  kill(-pid, SIGKILL);
  int status = 0;
  struct rusage usage = {};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  // A process short of address space does not always fail in operator new:
  // an mmap that fails deep in a library can end in a signal. A signal
  // death with the resident size near the limit, or a limit that left the
  // child (a copy of this process) under 256 MiB to grow in, is the limit's.
  bool nearLimit = limits.addressSpaceBytes &&
                   (uint64_t(usage.ru_maxrss) * 1024 * 2 >=
                        limits.addressSpaceBytes ||
                    startBytes + (uint64_t(256) << 20) >=
                        limits.addressSpaceBytes);
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    return refuse(RefusalCode::resource_limit,
                  "the MLIR process ran past its wall-time limit of " +
                      std::to_string(limits.seconds) + " s; no version was made",
                  "a smaller step (e.g. a smaller unroll factor), or a larger "
                  "limit if the work is legitimate");
  if ((WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemoryExit) ||
      (WIFSIGNALED(status) && nearLimit))
    return refuse(RefusalCode::resource_limit,
                  "the MLIR process ran out of its address-space limit of " +
                      std::to_string(limits.addressSpaceBytes >> 20) +
                      " MiB; no version was made",
                  "a smaller step (e.g. a smaller unroll factor), or a larger "
                  "limit if the work is legitimate");
  if (WIFSIGNALED(status))
    return refuse(RefusalCode::interpreter_crashed,
                  std::string("the MLIR process died of signal ") +
                      strsignal(WTERMSIG(status)) +
                      " (Debian's LLVM has no assertions: bad input can crash "
                      "upstream code); no version was made");
  auto parsed = json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return refuse(RefusalCode::internal, "the MLIR process left no result");
  }
  const json::Object *o = parsed->getAsObject();
  if (o && o->getBoolean("ok").value_or(false))
    return o->getString("text").value_or("").str();
  std::optional<Refusal> refusal =
      o && o->get("refusal") ? Refusal::fromJSON(*o->get("refusal"))
                             : std::nullopt;
  if (!refusal)
    return refuse(RefusalCode::internal, "the MLIR process left no result");
  return refuse(std::move(*refusal));
}

llvm::Expected<int> mlir::tirx::runProgram(llvm::ArrayRef<std::string> argv,
                                           unsigned seconds,
                                           const std::string &tmpDir,
                                           std::string *stderrTail) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  llvm::outs().flush();
  llvm::errs().flush();
  int errPipe[2] = {-1, -1};
  if (stderrTail && pipe2(errPipe, O_CLOEXEC) != 0)
    return refuse(RefusalCode::internal,
                  std::string("pipe() failed: ") + strerror(errno));
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    if (stderrTail) {
      ::close(errPipe[0]);
      ::close(errPipe[1]);
    }
    return refuse(RefusalCode::internal,
                  std::string("fork() failed: ") + strerror(errno));
  }
  if (pid == 0) {
    if (stderrTail)
      dup2(errPipe[1], STDERR_FILENO); // dup2 clears O_CLOEXEC on fd 2
    leadOwnGroup(parent);
    // exec keeps the parent-death signal but not the handler: the program
    // itself is killed (its own children, if any, by the group kill below).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!tmpDir.empty())
      setenv("TMPDIR", tmpDir.c_str(), 1);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  // The program's stderr, passed on as it comes and its tail kept. Read
  // without blocking: a program that escaped its group may hold the pipe
  // open after the group is killed.
  auto drain = [&] {
    if (!stderrTail)
      return;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(errPipe[0], buffer, sizeof buffer)) > 0) {
      llvm::errs().write(buffer, size_t(n));
      stderrTail->append(buffer, size_t(n));
      if (stderrTail->size() > kStderrTailBytes)
        stderrTail->erase(0, stderrTail->size() - kStderrTailBytes);
    }
    llvm::errs().flush();
  };
  if (stderrTail) {
    ::close(errPipe[1]);
    fcntl(errPipe[0], F_SETFL, fcntl(errPipe[0], F_GETFL) | O_NONBLOCK);
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::seconds(seconds);
  bool timedOut = false;
  while (true) {
    drain();
    // Ended but not reaped (WNOWAIT): its pid, the group's id, stays taken
    // until the group is killed below.
    siginfo_t info = {};
    int r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if ((r == 0 && info.si_pid == pid) || (r < 0 && errno != EINTR))
      break;
    if (seconds && std::chrono::steady_clock::now() >= deadline) {
      timedOut = true;
      break;
    }
    usleep(20000);
  }
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (stderrTail) {
    drain();
    ::close(errPipe[0]);
  }
  if (timedOut)
    return refuse(RefusalCode::resource_limit,
                  llvm::sys::path::filename(argv[0]).str() +
                      " ran past its wall-time limit of " +
                      std::to_string(seconds) + " s and was killed",
                  "fewer samples or a shorter --timeout, or a larger "
                  "--child-seconds if the run is legitimate");
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
