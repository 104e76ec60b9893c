#pragma once
// dataset.text: a plain UTF-8 text file read as characters, for sequence models. The file's distinct
// characters, in code point order, are its vocabulary: character i of the vocabulary is class i. Each sample is
// `window` consecutive characters as their ids (one value per position), its label the id of the character
// that follows; windows start every `stride` characters. `test_fraction` of the windows, chosen by a shuffle
// seeded with split_seed, are the test split, in that shuffled order (so test_limit keeps a sample of the whole
// text); the rest are the training samples that the common split divides (dataset_split.h). With `lowercase` the
// text is lower-cased first.

#include "dataset_loader.h"

#include <QString>
#include <QStringList>

namespace ty {

Result<DatasetShape> describeTextDataset(const DatasetRequest &request);
Result<LoadedDataset> loadTextDataset(const DatasetRequest &request);

// How a vocabulary character is written as a class name: itself, or for white space and control characters a
// readable name ("space", "\n", "\t", "U+0007").
QString characterClassName(char32_t c);

// The character a class name stands for (the inverse of characterClassName); 0 for a name that is none.
char32_t characterOfClassName(const QString &name);

// The ids of `text` under `vocabulary` (class names as characterClassName writes them); an Error naming the
// first character that the vocabulary lacks.
Result<std::vector<int64_t>> characterIds(const QString &text, const QStringList &vocabulary);

} // namespace ty
