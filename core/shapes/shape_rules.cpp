#include "shape_rules.h"

namespace ty {

const ShapeRules &ShapeRules::builtin()
{
    static const ShapeRules rules = [] {
        ShapeRules r;
        addTransformShapeRules(r);
        addLayerShapeRules(r);
        addSequenceShapeRules(r);
        addImageLayerShapeRules(r);
        addDimensionShapeRules(r);
        addAttentionShapeRules(r);
        addHeadShapeRules(r);
        addOptimizerStateRules(r);
        addCostRules(r);
        return r;
    }();
    return rules;
}

} // namespace ty
