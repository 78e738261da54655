#include "bench/common/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace warpcost {
namespace {

std::string read_all(int fd) {
  std::string text;
  char buffer[512];
  if (::lseek(fd, 0, SEEK_SET) < 0) return text;
  ssize_t n = 0;
  while ((n = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string GpuLock::path_for(const std::string& uuid) {
  std::string safe;
  for (const char c : uuid) safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return "/tmp/warpcost-gpu-" + safe + ".lock";
}

GpuLock::GpuLock(const std::string& uuid, const std::string& run_id, Mode mode) {
  const std::string path = path_for(uuid);
  // Everyone's runs share the file: readable and writable by all (umask aside).
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd >= 0) ::fchmod(fd, 0666);
  if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    why_ = path + ": " + std::strerror(errno) + "; the GPU is not locked against a second warpcost run";
    return;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      why_ = path + ": flock: " + std::strerror(errno) + "; the GPU is not locked against a second warpcost run";
      ::close(fd);
      return;
    }
    const std::string holder = read_all(fd);
    if (mode == Mode::kRefuse) {
      ::close(fd);
      throw GpuBusy("GPU " + uuid + " is in use by another warpcost run (" +
                    (holder.empty() ? std::string("no details in ") + path : holder) +
                    "); wait for it to end, or pass --warpcost_gpu_lock=wait to wait for it");
    }
    std::fprintf(stderr, "warpcost-bench: GPU %s is in use by another warpcost run (%s); waiting for it to end\n",
                 uuid.c_str(), holder.c_str());
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        why_ = path + ": flock: " + std::strerror(errno);
        ::close(fd);
        return;
      }
    }
  }
  fd_ = fd;
  const std::string text = "run " + run_id + ", process " + std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    if (::pwrite(fd_, text.data(), text.size(), 0) < 0) why_ = path + ": the holder's name was not written";
  }
}

GpuLock::~GpuLock() {
  if (fd_ < 0) return;
  if (::ftruncate(fd_, 0) != 0) {
    // the next holder rewrites it anyway
  }
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

}  // namespace warpcost
