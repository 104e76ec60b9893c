#!/usr/bin/env bash
# Fails when a widgets/ folder includes a header of a folder it may not use: the arrows of
# widgets/CMakeLists.txt, checked on the sources so that a wrong include is caught even where linking would
# not catch it (a header-only use). Usage: check_widget_layers.sh WIDGETS_DIR
set -euo pipefail
widgets=${1:?usage: check_widget_layers.sh WIDGETS_DIR}
declare -A allowed=(
  [common]=""
  [icons]="common"
  [document]=""
  [canvas]="document icons common"
  [palette]="canvas document icons common"
  [inspector]="canvas document icons common"
  [issues]="document icons common"
  [plots]="icons common"
  [runs]="common"
  [training]="plots runs icons common"
  [sweeps]="training plots runs icons common"
  [evaluation]="plots common"
)
status=0
for folder in "$widgets"/*/; do
  name=$(basename "$folder")
  if [ -z "${allowed[$name]+set}" ]; then
    echo "widgets/$name: a folder with no rule in check_widget_layers.sh (add it with the folders it may use)"
    status=1
    continue
  fi
  while IFS= read -r line; do
    file=${line%%:*}
    used=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$line")
    [ "$used" = "$name" ] && continue
    [ -d "$widgets/$used" ] || continue  # not a widgets folder
    if [[ " ${allowed[$name]} " != *" $used "* ]]; then
      echo "${file#"$widgets"/}: widgets/$name may not include from widgets/$used (allowed: ${allowed[$name]:-none})"
      status=1
    fi
  done < <(grep -HE '#include "[a-z_]+/' "$folder"*.h "$folder"*.cpp 2>/dev/null || true)
done
[ $status -eq 0 ] && echo "widgets: every include follows the layers"
exit $status
