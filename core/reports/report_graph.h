#pragma once
// The picture of a preset's graph for the HTML reports: each node a box at its canvas position (its id, block and,
// when known, output shape and parameter count), each edge a curve from the output side of one box to the input
// side of another, coloured by the block's category. A preset without positions (every node at one place) is laid
// out in graph order, four nodes a row. Inline SVG; pure function, any thread.

#include "preset.h"
#include "shape_types.h"

#include <QString>

namespace ty {

QString graphPictureSvg(const Preset &preset, const ShapeReport &shapes);

} // namespace ty
