#pragma once
// QCustomPlot's header uses the `signals` and `foreach` keywords, which this project switches off
// (QT_NO_KEYWORDS, because of LibTorch): include it through this file only, never <qcustomplot.h> directly.

#ifndef signals
#define TY_QCP_DEFINED_SIGNALS
#define signals Q_SIGNALS
#endif
#ifndef foreach
#define TY_QCP_DEFINED_FOREACH
#define foreach Q_FOREACH
#endif

#include <qcustomplot.h>

#ifdef TY_QCP_DEFINED_SIGNALS
#undef signals
#undef TY_QCP_DEFINED_SIGNALS
#endif
#ifdef TY_QCP_DEFINED_FOREACH
#undef foreach
#undef TY_QCP_DEFINED_FOREACH
#endif
