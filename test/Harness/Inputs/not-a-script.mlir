// not a transform script: no named sequence
module {
}
