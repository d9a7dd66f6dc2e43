// Replacing files so that a crash never leaves a partial one under the final name.
#pragma once
#include <filesystem>
#include <string>

namespace dunesim {

// fsync of a file or a directory (to make a rename durable). Throws naming the path.
void sync_to_disk(const std::string& path);

// std::filesystem::rename that throws naming both paths.
void rename_or_throw(const std::filesystem::path& from, const std::filesystem::path& to);

// Replaces `path` by a file holding `text`: written to `path`.tmp, synced, renamed, and the
// directory synced, so that after a crash the file holds either the old or the new text.
void replace_file(const std::filesystem::path& path, const std::string& text);

}  // namespace dunesim
