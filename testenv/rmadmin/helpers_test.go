package rmadmin_test

import "google.golang.org/protobuf/types/known/emptypb"

func emptyMsg() *emptypb.Empty { return &emptypb.Empty{} }
