package ipc

import (
	"fmt"

	// Linking colinmarc/hdfs registers the Hadoop message types this package
	// looks up by name.
	_ "github.com/colinmarc/hdfs/v2"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Lookup resolves registry message types and fields by name, keeping the
// first failure, so a caller can resolve everything it needs once, check one
// error, and then work with descriptors on its hot paths.
type Lookup struct {
	err error
}

// Message returns the registered message type with the given full name,
// e.g. "hadoop.hdfs.GetBlockLocationsRequestProto".
func (l *Lookup) Message(fullName string) protoreflect.MessageType {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(fullName))
	if err != nil {
		l.fail(fmt.Errorf("ipc: message %s: %w", fullName, err))
		return nil
	}
	return mt
}

// Field returns the field of md with the given name (as in the .proto).
func (l *Lookup) Field(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	if md == nil {
		return nil
	}
	fd := md.Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		l.fail(fmt.Errorf("ipc: %s has no field %q", md.FullName(), name))
	}
	return fd
}

// Enum returns the number of the named value of an enum field.
func (l *Lookup) Enum(fd protoreflect.FieldDescriptor, value string) protoreflect.EnumNumber {
	if fd == nil {
		return 0
	}
	if fd.Enum() == nil {
		l.fail(fmt.Errorf("ipc: field %s is not an enum", fd.FullName()))
		return 0
	}
	v := fd.Enum().Values().ByName(protoreflect.Name(value))
	if v == nil {
		l.fail(fmt.Errorf("ipc: enum %s has no value %s", fd.Enum().FullName(), value))
		return 0
	}
	return v.Number()
}

// Service returns a registered service, e.g. "hadoop.hdfs.ClientNamenodeProtocol".
func (l *Lookup) Service(fullName string) protoreflect.ServiceDescriptor {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(fullName))
	if err != nil {
		l.fail(fmt.Errorf("ipc: service %s: %w", fullName, err))
		return nil
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		l.fail(fmt.Errorf("ipc: %s is not a service", fullName))
		return nil
	}
	return sd
}

// Err returns the first lookup that failed, or nil.
func (l *Lookup) Err() error { return l.err }

func (l *Lookup) fail(err error) {
	if l.err == nil {
		l.err = err
	}
}

// desc returns mt's descriptor, or nil when the lookup of mt failed.
func desc(mt protoreflect.MessageType) protoreflect.MessageDescriptor {
	if mt == nil {
		return nil
	}
	return mt.Descriptor()
}
