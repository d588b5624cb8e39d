// RUN: tirx-opt %s -split-input-file -verify-diagnostics

tirx.session @s {
  // expected-error @below {{digest mismatch: recorded sha256:ec8035679c376f89e5cd0da7ba94e7b9140c15ff9d5c2540a49f790719539e6a, the payload's canonical text has sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6}}
  tirx.snapshot @v1 digest "sha256:ec8035679c376f89e5cd0da7ba94e7b9140c15ff9d5c2540a49f790719539e6a" {
    module {
    }
  }
}

// -----

tirx.session @s {
  // expected-error @below {{parent @v9 is not a snapshot of this session}}
  tirx.snapshot @v1 parent @v9 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
}

// -----

// expected-error @below {{is its own ancestor (a cycle through}}
tirx.session @s {
  tirx.snapshot @v1 parent @v2 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
  tirx.snapshot @v2 parent @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
}

// -----

tirx.session @s {
  // expected-error @below {{@v1 cannot be its own parent}}
  tirx.snapshot @v1 parent @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
}

// -----

tirx.session @s {
  // expected-error @below {{must hold exactly one builtin.module, the payload}}
  tirx.snapshot @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    %c = arith.constant 1 : i32
  }
}

// -----

tirx.session @s {
  // expected-error @below {{version id "../v1" is invalid}}
  tirx.snapshot @"../v1" digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
}

// -----

tirx.session @s {
  tirx.snapshot @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
  tirx.snapshot @v2 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
  // expected-error @below {{@v2 is not a child of @v1}}
  tirx.step @v1 -> @v2 kind "commit"
}

// -----

tirx.session @s {
  tirx.snapshot @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
  tirx.snapshot @v2 parent @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
  // expected-error @below {{an apply step needs its script}}
  tirx.step @v1 -> @v2 kind "apply"
}

// -----

tirx.session @s {
  tirx.snapshot @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
  // expected-error @below {{@v3 is not a snapshot of this session}}
  tirx.step @v1 -> @v3 kind "commit"
}

// -----

tirx.session @s {
  tirx.snapshot @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
  tirx.snapshot @v2 parent @v1 digest "sha256:a7c3ea80d1f603bfd137f121bae4581221c1473e12046b8eabb20e671834ccb6" {
    module {
    }
  }
  // expected-error @below {{kind must be "apply" or "commit", got "merge"}}
  tirx.step @v1 -> @v2 kind "merge"
}
