namespace kinema { void registerBackend_petsc() {} }
