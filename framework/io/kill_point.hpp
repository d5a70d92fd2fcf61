#pragma once
// Test-only fault injection for the kill tests (docs/reliability.md, "Kill tests"): when the
// environment variable KINEMA_TEST_KILL_AT names a write point of this process, the process sends
// itself SIGKILL there, in the middle of a frame or checkpoint write, as a node failure or the
// out-of-memory killer would. Unset (every normal run), it costs one getenv per process.
//
//   KINEMA_TEST_KILL_AT=frame:K[@R]       frame K of frames.h5 (the group /frames/00000K), after
//                                         its datasets are written, before it is marked complete
//                                         and flushed
//   KINEMA_TEST_KILL_AT=checkpoint:N[@R]  the N-th checkpoint this process writes (1, 2, ...),
//                                         after its datasets are written to <name>.tmp, before
//                                         the file is closed, checksummed and renamed
//
// `@R` restricts the kill to rank R of the communicator that writes; without it every rank dies.
namespace kinema::io {

enum class KillPoint { frame, checkpoint };

// Raises SIGKILL on this process if KINEMA_TEST_KILL_AT names `point` number `index` and `rank`.
// A malformed value is reported once on stderr and ignored.
void killPointReached(KillPoint point, long index, int rank);

}  // namespace kinema::io
