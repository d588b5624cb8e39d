func.func @broken(%a: f32 {
