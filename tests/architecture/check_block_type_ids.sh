#!/usr/bin/env bash
# Fails when widgets/ names a built-in block by its type id in a string literal ("dataset.text"): a view decides
# what to offer for a kind by the capabilities of its descriptor (core/blocks/block_descriptor.h: nodeIdPrefix,
# yieldsTextWindows, takesDataStatistics, its category), never by comparing type ids, so a new kind with the
# same capability gets the same views. The type ids are read from core/blocks' declarations.
# Usage: check_block_type_ids.sh WIDGETS_DIR BLOCKS_DIR
set -euo pipefail
widgets=${1:?usage: check_block_type_ids.sh WIDGETS_DIR BLOCKS_DIR}
blocks=${2:?usage: check_block_type_ids.sh WIDGETS_DIR BLOCKS_DIR}
mapfile -t ids < <(grep -ohE '"(dataset|transform|layer|loss|optimizer|schedule|metric)\.[a-z0-9_]+"' "$blocks"/builtin_blocks_*.cpp | sort -u)
if [ "${#ids[@]}" -lt 20 ]; then
  echo "found only ${#ids[@]} type ids in $blocks/builtin_blocks_*.cpp: is the pattern still right?"
  exit 1
fi
pattern=$(printf '%s\n' "${ids[@]}")
status=0
while IFS= read -r hit; do
  echo "${hit#"$widgets"/}: a block named by its type id; give its descriptor a capability instead (core/blocks/block_descriptor.h)"
  status=1
done < <(grep -rnF --include='*.cpp' --include='*.h' -f <(echo "$pattern") "$widgets" || true)
[ $status -eq 0 ] && echo "widgets: no block named by its type id (${#ids[@]} type ids checked)"
exit $status
