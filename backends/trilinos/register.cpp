namespace kinema { void registerBackend_trilinos() {} }
